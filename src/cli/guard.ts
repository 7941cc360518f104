import { guardInstalled, installGuard, uninstallGuard } from '../integrations/git-hooks.js';
import { printJson } from './format.js';
import { BYPASS } from './guard-check.js';
import { cliInvocation } from './invocation.js';

export function guardInstall(options: { json?: boolean }): void {
  const { command, args } = cliInvocation();
  const result = installGuard(process.cwd(), { command, args });
  if (options.json) {
    printJson(result);
    return;
  }
  console.log(
    `${result.action === 'installed' ? 'Installed' : 'Updated'} the pre-commit guard in ${result.place.file}.`,
  );
  if (result.place.style === 'husky') console.log('It runs first in your husky pre-commit script.');
  if (result.tracked)
    console.log(
      `${result.place.file} is tracked by git, and the guard's line names this machine's paths: on a machine without them, a commit goes ahead unchecked, with a note. Commit it only if your team runs session-collab from the same place.`,
    );
  else if (result.chained)
    console.log(`Your existing pre-commit hook was kept (${result.chained}) and runs after the check.`);
  console.log(`Commits touching files another live session holds are refused. ${BYPASS}`);
}

export function guardUninstall(options: { json?: boolean }): void {
  const result = uninstallGuard(process.cwd());
  if (options.json) {
    printJson(result);
    return;
  }
  if (!result.removed) console.log(`No session-collab guard in ${result.place.file}; nothing to do.`);
  else
    console.log(
      `Removed the pre-commit guard from ${result.place.file}${result.restored ? '; your previous hook is back' : ''}.`,
    );
}

export function guardStatus(options: { json?: boolean }): void {
  const installed = guardInstalled(process.cwd());
  if (options.json) {
    printJson({ installed });
    return;
  }
  console.log(
    installed
      ? 'The pre-commit guard is installed.'
      : 'No pre-commit guard; install it with `session-collab guard install`.',
  );
}
