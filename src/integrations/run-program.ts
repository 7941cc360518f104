import type {
  ExecFileOptionsWithStringEncoding,
  ExecFileSyncOptionsWithStringEncoding,
} from 'node:child_process';
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

/**
 * As `runProgram`, without blocking: a serving process answers other sessions while the program
 * runs. Rejects as `execFileSync` throws (the error carries `code`, `stderr`; ENOBUFS past `maxBuffer`).
 */
export function runProgramAsync(
  file: string,
  args: string[],
  options: ExecFileOptionsWithStringEncoding & { input?: string },
): Promise<string> {
  childProcess ??= createRequire(__filename)('node:child_process') as typeof import('node:child_process');
  const run = childProcess;
  return new Promise((resolve, reject) => {
    const child = run.execFile(file, args, options, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { stderr, stdout }));
      else resolve(stdout);
    });
    // Its standard input is `input`, else nothing (as `stdio: 'ignore'` for the blocking kind).
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input);
  });
}
