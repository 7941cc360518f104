/**
 * A project's landing rules: the `land:` section of `.session-collab.yaml`, read from the target
 * as it is (the rules of the branch work lands on, not of the work asking to land: a request
 * cannot change the check it is held to).
 *
 * ```yaml
 * land:
 *   check: npm test            # run in the scratch worktree; exit 0 lets the work land
 *   check_timeout_seconds: 900 # past it the check is ended and the work refused
 *   require_review: false      # true: only work whose work item is approved lands
 *   remote: origin             # the remote a copy with several lands through
 * ```
 */
import { createRequire } from 'node:module';
import { z } from 'zod';
import { textAt } from '../../integrations/git-landing.js';

const landSection = z.strictObject({
  check: z.string().trim().min(1).max(4_000).optional(),
  check_timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(6 * 3600)
    .default(900),
  require_review: z.boolean().default(false),
  remote: z.string().min(1).max(200).optional(),
});

export type LandSettings = z.infer<typeof landSection>;

/** The project's rules, or why they could not be read (the request is refused with it). */
export async function landSettings(
  worktree: string,
  target: string,
): Promise<{ settings: LandSettings } | { error: string }> {
  const text = await textAt(worktree, target, '.session-collab.yaml');
  if (text === null) return { settings: landSection.parse({}) };
  let parsed: unknown;
  try {
    const yaml = createRequire(typeof __filename === 'string' ? __filename : `${process.cwd()}/`)(
      'yaml',
    ) as typeof import('yaml');
    parsed = yaml.parse(text.slice(0, 64 * 1024));
  } catch (error) {
    return {
      error: `.session-collab.yaml on the target is not valid YAML: ${(error as Error).message.split('\n')[0]}`,
    };
  }
  const section = parsed && typeof parsed === 'object' ? (parsed as { land?: unknown }).land : undefined;
  const result = landSection.safeParse(section ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    return { error: `.session-collab.yaml on the target: land.${issue.path.join('.')}: ${issue.message}` };
  }
  return { settings: result.data };
}
