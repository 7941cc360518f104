/**
 * git's own three-way merge of one file (`git merge-file`, the content merge every git merge runs):
 * how many conflicts merging two versions of a file from one base leaves. For two copies of a
 * repository on this machine, whose files can both be read, it checks what their hunks predict.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProgram } from './run-program.js';

/**
 * The conflicts of merging `ours` and `theirs` (files on disk) from `base` (a text): 0 when git
 * merges them cleanly; null when git could not tell (missing file, binary, a failure).
 */
export function mergeConflicts(base: string, ours: string, theirs: string, timeoutMs = 5_000): number | null {
  const dir = mkdtempSync(join(tmpdir(), 'collab-merge-'));
  try {
    const basePath = join(dir, 'base');
    writeFileSync(basePath, base);
    runProgram('git', ['merge-file', '-p', '--quiet', ours, basePath, theirs], {
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return 0;
  } catch (error) {
    // The exit status is the number of conflicts (up to 127); a negative one is an error.
    const status = (error as { status?: number | null }).status;
    return typeof status === 'number' && status > 0 && status < 128 ? status : null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
