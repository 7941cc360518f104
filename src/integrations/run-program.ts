import type { ExecFileSyncOptionsWithStringEncoding } from 'node:child_process';
import { createRequire } from 'node:module';

let childProcess: typeof import('node:child_process') | undefined;

/**
 * Runs a program to completion and returns its standard output. node:child_process is loaded on
 * the first call: with the net and dgram modules it pulls in, it costs about 4 ms of a process's
 * start, and a hook process usually never starts a program.
 */
export function runProgram(
  file: string,
  args: string[],
  options: ExecFileSyncOptionsWithStringEncoding,
): string {
  childProcess ??= createRequire(__filename)('node:child_process') as typeof import('node:child_process');
  return childProcess.execFileSync(file, args, options);
}
