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

/** What `runProgramAsync` is given: plain values only, so that another process can run it. */
export type ProgramOptions = ExecFileOptionsWithStringEncoding & { input?: string };

/** Where `runProgramAsync` runs programs when not in this process (`runProgramsApart`). */
let apart: ((file: string, args: string[], options: ProgramOptions) => Promise<string>) | null = null;

/**
 * Has `runProgramAsync` run its programs through `runner` (a long-lived server's spawner process,
 * integrations/spawner.ts), or in this process again (null).
 */
export function runProgramsApart(
  runner: ((file: string, args: string[], options: ProgramOptions) => Promise<string>) | null,
): void {
  apart = runner;
}

/**
 * As `runProgram`, without blocking: a serving process answers other sessions while the program
 * runs. Rejects as `execFileSync` throws (the error carries `code`, `stderr`; ENOBUFS past `maxBuffer`).
 */
export function runProgramAsync(file: string, args: string[], options: ProgramOptions): Promise<string> {
  return apart ? apart(file, args, options) : runProgramHere(file, args, options);
}

/** As `runProgramAsync`, always as a child of this process. */
export function runProgramHere(file: string, args: string[], options: ProgramOptions): Promise<string> {
  childProcess ??= createRequire(__filename)('node:child_process') as typeof import('node:child_process');
  const run = childProcess;
  return new Promise((resolve, reject) => {
    const child = run.execFile(file, args, options, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      // Past `maxBuffer` the asynchronous kind says ERR_CHILD_PROCESS_STDIO_MAXBUFFER: said as the
      // blocking kind says it (ENOBUFS), which is what callers look for.
      const code =
        (error as NodeJS.ErrnoException).code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER'
          ? 'ENOBUFS'
          : error.code;
      reject(Object.assign(error, { stderr, stdout, code }));
    });
    // Its standard input is `input`, else nothing (as `stdio: 'ignore'` for the blocking kind).
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input);
  });
}
