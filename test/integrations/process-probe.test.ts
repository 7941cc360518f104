import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processAlive, processStartTime } from '../../src/integrations/process-probe.js';

describe('process liveness', () => {
  it('a running process is alive; the same pid with another start time is not', () => {
    const start = processStartTime(process.pid);
    expect(start).not.toBeNull();
    expect(processAlive(process.pid, start)).toBe(true);
    expect(processAlive(process.pid, `${start}1`)).toBe(false);
  });

  it('a process that ended is seen dead within a moment of its end (answers hold 25 ms)', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    const pid = child.pid!;
    const start = processStartTime(pid);
    expect(processAlive(pid, start)).toBe(true);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const ended = Date.now();
    while (processAlive(pid, start)) await new Promise((r) => setTimeout(r, 10));
    expect(Date.now() - ended).toBeLessThan(1_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(processAlive(pid, start)).toBe(false);
  });

  it('a zombie (exited, not reaped by its parent) counts as dead', async () => {
    // The parent forks a child that exits at once, and sleeps without ever waiting for it.
    const parent = spawn(
      'python3',
      [
        '-c',
        'import os,sys,time\npid=os.fork()\nif pid==0: os._exit(0)\nprint(pid,flush=True)\ntime.sleep(20)',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const zombie = await new Promise<number>((resolve) =>
        parent.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
      );
      // Wait until the kernel shows it as a zombie.
      const deadline = Date.now() + 5000;
      while (processAlive(zombie, null) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(() => process.kill(zombie, 0)).not.toThrow(); // the pid still exists...
      expect(processAlive(zombie, null)).toBe(false); // ...but nothing runs
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
