/**
 * The project's check before work lands (`land.check`, e.g. `npm test`): a shell command run in
 * the scratch worktree, in a process group of its own, bounded in time, its output's tail kept.
 * What it starts carries the landing's mark, so that a process taking over a landing whose lander
 * died ends the check that lander left running.
 */
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { endMarkedBy, endProcessGroup } from './agent-cli.js';

/** The variable a check and what it starts carry: the landing's id. */
const LANDING_MARKER = 'SESSION_COLLAB_LANDING';

export interface CheckRun {
  passed: boolean;
  /** The exit code (null when a signal ended it). */
  code: number | null;
  timedOut: boolean;
  cancelled: boolean;
  /** The last `tailChars` characters of its standard output and error, interleaved as written. */
  output: string;
  ms: number;
}

export function runCheck(options: {
  command: string;
  cwd: string;
  landingId: string;
  timeoutMs: number;
  tailChars: number;
  signal: AbortSignal;
}): Promise<CheckRun> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('/bin/sh', ['-c', options.command], {
      cwd: options.cwd,
      env: { ...process.env, [LANDING_MARKER]: options.landingId, CI: process.env.CI ?? '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let tail = '';
    let timedOut = false;
    let cancelled = false;
    const decoders = [new StringDecoder('utf8'), new StringDecoder('utf8')];
    const keep = (text: string) => {
      tail += text;
      if (tail.length > options.tailChars * 2) tail = tail.slice(-options.tailChars);
    };
    child.stdout.on('data', (chunk: Buffer) => keep(decoders[0]!.write(chunk)));
    child.stderr.on('data', (chunk: Buffer) => keep(decoders[1]!.write(chunk)));
    const end = () => {
      if (child.pid !== undefined)
        void endProcessGroup(child.pid).then(() => endMarkedBy(marker(options.landingId)));
    };
    const timer = setTimeout(() => {
      timedOut = true;
      end();
    }, options.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      end();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    let finished = false;
    const finish = (code: number | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      const output = tail.slice(-options.tailChars);
      resolve({
        passed: code === 0 && !timedOut && !cancelled,
        code,
        timedOut,
        cancelled,
        output,
        ms: Date.now() - started,
      });
    };
    child.on('error', (error) => {
      keep(`\n${error.message}\n`);
      finish(null);
    });
    // Once the shell exits, what it left running goes (it would outlive its scratch worktree, and
    // hold the output open): the whole group, then its output is read to its end.
    let exitCode: number | null = null;
    child.on('exit', (code) => {
      exitCode = code;
      if (child.pid === undefined) return;
      // A process that left the group may still hold the pipes: they are closed once it is ended.
      // (after a second for what is still in them to be read).
      void endProcessGroup(child.pid, 500).then(() =>
        setTimeout(() => {
          if (finished) return;
          child.stdout.destroy();
          child.stderr.destroy();
        }, 1_000).unref(),
      );
    });
    child.on('close', () => finish(exitCode));
  });
}

function marker(landingId: string): string {
  return `${LANDING_MARKER}=${landingId}`;
}

/** Ends a check a dead lander left running for this landing (on this machine): whether there was one. */
export async function endLeftCheck(landingId: string): Promise<boolean> {
  return (await endMarkedBy(marker(landingId))) === true;
}
