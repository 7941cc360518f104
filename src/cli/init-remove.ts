import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { unifiedDiff } from '../core/line-diff.js';
import { planRemoval } from '../integrations/client-removal.js';
import { CLIENTS, type ClientName } from '../integrations/client-setup.js';
import { readText } from '../integrations/client-wiring.js';
import { checkReplaceable, replaceText } from '../integrations/file-replace.js';
import { guardInstalled } from '../integrations/git-hooks.js';
import { bold, dim, green, printJson } from './format.js';
import { type InitOptions, parseClients, projectHere } from './init.js';

/**
 * `session-collab init --remove`: takes out of this project's client files what `init` wrote (the
 * MCP server, the hooks, the collaboration rules, the .gitignore line), for every client or those
 * named; the user's own entries stay, and a file left empty goes.
 */
export function initRemove(options: InitOptions): void {
  const root = projectHere();
  const clients: ClientName[] = options.client ? parseClients(options.client, root) : [...CLIENTS];
  const read = (path: string) => readText(join(root, path));
  const removals = clients.flatMap((client) =>
    planRemoval(client, read).map((r) => ({ client, ...r, before: read(r.path) ?? '' })),
  );
  if (!options.dryRun) {
    checkReplaceable(removals.filter((r) => r.after !== null).map((r) => join(root, r.path)));
    for (const r of removals) {
      const target = join(root, r.path);
      if (r.after === null) rmSync(target, { force: true });
      else {
        mkdirSync(dirname(target), { recursive: true });
        replaceText(target, r.after);
      }
    }
  }
  const guard = guardInstalled(root);
  if (options.json) {
    printJson({
      root,
      dry_run: options.dryRun === true,
      files: removals.map((r) => ({
        client: r.client,
        path: r.path,
        purpose: r.purpose,
        removed: r.after === null,
      })),
      guard_installed: guard,
    });
    return;
  }
  if (options.dryRun) {
    for (const r of removals)
      process.stdout.write(
        unifiedDiff(r.before, r.after ?? '', `a/${r.path}`, r.after === null ? '/dev/null' : `b/${r.path}`) ??
          `${r.path}: too many changed lines to show as a diff\n`,
      );
    console.log(dim(`\n(dry run: nothing written in ${root})`));
    return;
  }
  console.log(`${bold('session-collab init --remove')} in ${root}`);
  if (removals.length === 0) console.log(dim('Nothing of session-collab is in these clients’ files here.'));
  for (const r of removals)
    console.log(
      `  ${r.after === null ? green('removed  ') : green('updated  ')} ${r.path.padEnd(34)} ${dim(`${r.after === null ? '' : 'took out: '}${r.purpose}`)}`,
    );
  if (guard)
    console.log(
      `\nThe commit guard stays (init did not install it): ${bold('session-collab guard uninstall')} removes it.`,
    );
  console.log(
    dim(
      'Folders trusted in Codex CLI or Gemini CLI stay trusted (their own settings). Restart the clients in this folder.',
    ),
  );
}
