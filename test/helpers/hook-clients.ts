/**
 * Two fake client processes in one repository with one home, whose hooks the tests run (each a
 * long-lived process, as a real client is), closed after each test by `closeHookClients`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hookClient } from './stdio.js';
import { gitRepo, tempDir } from './temp.js';

export type HookClient = Awaited<ReturnType<typeof hookClient>>;
const open: HookClient[] = [];

/** Closes this later with the others (`closeHookClients`). */
export function keepOpen(...clients: HookClient[]): void {
  open.push(...clients);
}

export async function closeHookClients(): Promise<void> {
  await Promise.all(open.splice(0).map((c) => c.close()));
}

/** A home (with `config`), a repository with a Python and a TSX file, and two client processes in it. */
export async function twoHookClients(config: Record<string, unknown> = {}) {
  const home = tempDir('collab-home-');
  if (Object.keys(config).length > 0) writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  const repo = gitRepo({
    'src/api/auth.py': 'def login(user):\n    pass\n',
    'src/ui/app.tsx': 'export {}\n',
  });
  const a = await hookClient({ cwd: repo, home });
  const b = await hookClient({ cwd: repo, home });
  keepOpen(a, b);
  return { home, repo, a, b };
}
