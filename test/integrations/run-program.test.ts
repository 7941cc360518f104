/**
 * A program whose output passes its bound fails as the blocking kind says it (ENOBUFS), here and in
 * the spawner alike: what callers fall back on (a diff too large to read by lines is read by files).
 */
import { expect, it } from 'vitest';
import { runProgramHere } from '../../src/integrations/run-program.js';

it('output past maxBuffer is ENOBUFS', async () => {
  await expect(
    runProgramHere(process.execPath, ['-e', 'process.stdout.write("x".repeat(100000))'], {
      encoding: 'utf8',
      maxBuffer: 1_000,
    }),
  ).rejects.toMatchObject({ code: 'ENOBUFS' });
  await expect(
    runProgramHere(process.execPath, ['-e', 'process.exit(3)'], { encoding: 'utf8' }),
  ).rejects.toMatchObject({ code: 3 });
});
