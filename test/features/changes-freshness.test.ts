/**
 * What a check reads again of the sessions' worktrees, on either backend: a file read again and
 * found as it was is not read again at the next check, as long as nothing changed it since.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ProgramOptions, runProgramHere, runProgramsApart } from '../../src/integrations/run-program.js';
import { testApp, twoClonesInMemory } from '../helpers/app.js';

afterEach(() => runProgramsApart(null));

describe('what a check reads again', () => {
  it('a file that does not exist, its folder changed since the sessions were read: read again once, not at every check', async () => {
    const app = await testApp();
    const { aliceDir, bobDir, alice, bob } = await twoClonesInMemory(app, { 'src/a.ts': 'a\n' });
    // Each copy read whole (a check of everything), then its top folder changes (a file made
    // there): a file that does not exist is judged by its nearest folder, changed since.
    await alice.call('collab_check');
    await bob.call('collab_check');
    await new Promise((r) => setTimeout(r, 100));
    writeFileSync(join(aliceDir, 'notes.txt'), 'n\n');
    writeFileSync(join(bobDir, 'notes.txt'), 'n\n');
    // (A change within 50 ms of a read may be after it, for a file system's clock: apart.)
    await new Promise((r) => setTimeout(r, 100));

    const runs: string[][] = [];
    runProgramsApart((file: string, args: string[], options: ProgramOptions) => {
      runs.push([file, ...args]);
      return runProgramHere(file, args, options);
    });
    const check = () => alice.call<{ safe: boolean }>('collab_check', { files: ['newdir/x.ts'] });
    // The first check reads the file again in both copies (git: it may have been made meanwhile).
    expect((await check()).safe).toBe(true);
    expect(runs.length).toBeGreaterThan(0);
    runs.length = 0;
    // Found as it was, in both: the next checks read nothing again, however many.
    for (let i = 0; i < 5; i++) expect((await check()).safe).toBe(true);
    expect(runs).toEqual([]);

    // Its folder changed again: read again.
    writeFileSync(join(bobDir, 'more.txt'), 'm\n');
    await new Promise((r) => setTimeout(r, 100));
    expect((await check()).safe).toBe(true);
    expect(runs.length).toBeGreaterThan(0);
    await app.close();
  });
});
