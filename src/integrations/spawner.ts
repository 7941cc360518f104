/**
 * Programs a long-lived server runs (git, for the sessions' changes and landings) started by a
 * small process of its own, the spawner (integrations/spawner-process.ts, built as
 * dist/spawner.cjs), rather than by the server: starting a program forks the process that starts
 * it, page tables and all, and the server's event loop, every session's call with it, waits for
 * that fork (1.4 ms p50, up to 6 ms, for a server of 136 MiB: 219 git processes cost one check run
 * at 10,000 claims 323 ms of its loop). Only `runProgramAsync` goes there; what runs a program and
 * blocks (`runProgram`) blocks anyway.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type ProgramOptions, runProgramHere, runProgramsApart } from './run-program.js';

export interface ProgramRequest {
  id: number;
  file: string;
  args: string[];
  options: ProgramOptions;
}

export type ProgramReply =
  | { id: number; stdout: string; error?: undefined }
  | {
      id: number;
      stdout?: undefined;
      error: {
        message: string;
        code?: string | number | undefined;
        killed?: boolean | undefined;
        signal?: string | undefined;
        stdout?: string | undefined;
        stderr?: string | undefined;
      };
    };

/** A spawner that died this many times is not started again: programs run in the server then. */
const MAX_DEATHS = 3;

interface Asked {
  request: ProgramRequest;
  resolve: (stdout: string) => void;
  reject: (error: unknown) => void;
}

/**
 * Has this process run its programs through a spawner, where the build has one (`script`, by
 * default dist/spawner.cjs beside this bundle; null from source). A program under way when its
 * spawner dies fails (code ESPAWNERLOST: it may have run); one the spawner never got runs here; the
 * next one starts another spawner (after 3 deaths, programs run here). Returns what stops it:
 * programs run here again.
 */
export function programsApart(script = join(dirname(__filename), 'spawner.cjs')): (() => void) | null {
  if (!script.endsWith('.cjs') || !existsSync(script)) return null;
  const { fork } = createRequire(__filename)('node:child_process') as typeof import('node:child_process');
  let child: ChildProcess | null = null;
  let deaths = 0;
  let next = 0;
  const asked = new Map<number, Asked>();
  const here = (a: Asked) => {
    runProgramHere(a.request.file, a.request.args, a.request.options).then(a.resolve, a.reject);
  };
  /** Its channel keeps this process up only while a program runs there. */
  const refer = () => {
    const channel = child?.channel as { ref(): void; unref(): void } | undefined;
    if (asked.size > 0) channel?.ref();
    else channel?.unref();
  };
  const start = (): ChildProcess => {
    const started = fork(script, [], {
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      execArgv: [],
    });
    started.on('message', (reply: ProgramReply) => {
      const a = asked.get(reply.id);
      if (!a) return;
      asked.delete(reply.id);
      refer();
      if (reply.error === undefined) a.resolve(reply.stdout);
      else a.reject(Object.assign(new Error(reply.error.message), reply.error));
    });
    started.once('exit', () => {
      if (child === started) child = null;
      deaths++;
      // What it had not answered may have run, or be running still (its programs outlive it): it
      // fails, as a program that crashed does, rather than run twice (a landing's push, say).
      const left = [...asked.values()];
      asked.clear();
      for (const a of left)
        a.reject(
          Object.assign(
            new Error(`${a.request.file}: the spawner running it went away; it may or may not have run`),
            {
              code: 'ESPAWNERLOST',
            },
          ),
        );
    });
    started.on('error', () => {});
    started.unref();
    return started;
  };
  runProgramsApart((file, args, options) => {
    const request: ProgramRequest = {
      id: next++,
      file,
      args,
      // Its environment as this process has it now, not as it was when the spawner started.
      options: { ...options, env: options.env ?? process.env },
    };
    return new Promise((resolve, reject) => {
      const a = { request, resolve, reject };
      if (deaths >= MAX_DEATHS) return here(a);
      child ??= start();
      asked.set(request.id, a);
      refer();
      child.send(request, (error) => {
        // Not sent (its channel closed): run here, unless its exit did already.
        if (error && asked.delete(request.id)) here(a);
      });
    });
  });
  return () => {
    runProgramsApart(null);
    const last = child;
    child = null;
    deaths = MAX_DEATHS;
    if (last?.connected) last.disconnect();
  };
}
