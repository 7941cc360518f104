/**
 * A long-lived server's programs started by its spawner (integrations/spawner.ts, the built
 * dist/spawner.cjs): what they write and how they fail reach the caller as if run here, the
 * caller's environment as it is now goes with them, and a spawner that dies loses no program.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runProgramAsync } from '../../src/integrations/run-program.js';
import { programsApart } from '../../src/integrations/spawner.js';

const SCRIPT = join(__dirname, '../../dist/spawner.cjs');
const sh = (script: string, extra: { input?: string; maxBuffer?: number } = {}) =>
  runProgramAsync('sh', ['-c', script], { encoding: 'utf8', timeout: 10_000, ...extra });
const parentOf = (pid: number) =>
  Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);

let stop: (() => void) | null = null;
afterEach(() => {
  stop?.();
  stop = null;
});

describe.skipIf(!existsSync(SCRIPT))('programs run by a spawner', () => {
  it('run as children of the spawner, a child of this process; output, failures and input as here', async () => {
    stop = programsApart(SCRIPT);
    expect(stop).not.toBeNull();
    const spawner = Number((await sh('echo $PPID')).trim());
    expect(spawner).not.toBe(process.pid);
    expect(parentOf(spawner)).toBe(process.pid);
    expect(await sh('cat', { input: 'given\n' })).toBe('given\n');
    const failed = await sh('echo out; echo bad >&2; exit 3').catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 3, stdout: 'out\n', stderr: 'bad\n' });
    expect((failed as Error).message).toMatch(/Command failed/);
    const tooMuch = await sh('head -c 5000 /dev/zero', { maxBuffer: 100 }).catch((e: unknown) => e);
    expect(tooMuch).toMatchObject({ code: 'ENOBUFS' });
    const missing = await runProgramAsync('no-such-program-here', [], { encoding: 'utf8' }).catch((e) => e);
    expect(missing).toMatchObject({ code: 'ENOENT' });
    // The environment as this process has it when the program is asked for.
    process.env.SPAWNER_TEST_VALUE = 'now';
    try {
      expect(await sh('echo $SPAWNER_TEST_VALUE')).toBe('now\n');
    } finally {
      delete process.env.SPAWNER_TEST_VALUE;
    }
    // Stopped: programs run here again.
    stop!();
    stop = null;
    expect(Number((await sh('echo $PPID')).trim())).toBe(process.pid);
  });

  it('a spawner killed with programs under way: each fails as lost (not run twice), and the next program has a new spawner', async () => {
    stop = programsApart(SCRIPT);
    const first = Number((await sh('echo $PPID')).trim());
    const running = [1, 2, 3].map((n) => sh(`sleep 0.3; echo ${n}`).catch((e: unknown) => e));
    await new Promise((r) => setTimeout(r, 100));
    process.kill(first, 'SIGKILL');
    for (const outcome of await Promise.all(running)) expect(outcome).toMatchObject({ code: 'ESPAWNERLOST' });
    const second = Number((await sh('echo $PPID')).trim());
    expect(second).not.toBe(first);
    expect(parentOf(second)).toBe(process.pid);
  });

  it('a spawner ends when its server is killed outright', async () => {
    // A stand-in for the server: it starts the spawner as programsApart does, and is SIGKILLed.
    const server = spawn(
      process.execPath,
      [
        '-e',
        `const s = require('node:child_process').fork(${JSON.stringify(SCRIPT)}, [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
         process.stdout.write(String(s.pid) + '\\n'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const spawner = await new Promise<number>((resolve) =>
      server.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
    );
    expect(parentOf(spawner)).toBe(server.pid);
    server.kill('SIGKILL');
    const gone = () => {
      try {
        return /\) [ZX] /.test(readFileSync(`/proc/${spawner}/stat`, 'utf8'));
      } catch {
        return true;
      }
    };
    const deadline = Date.now() + 5_000;
    while (!gone() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(gone()).toBe(true);
  });

  it('from source (no built spawner) there is none: programs run here', async () => {
    expect(programsApart(join(__dirname, 'no-spawner.cjs'))).toBeNull();
    expect(programsApart(join(__dirname, '../../src/integrations/spawner-process.ts'))).toBeNull();
    expect(Number((await sh('echo $PPID')).trim())).toBe(process.pid);
  });
});
