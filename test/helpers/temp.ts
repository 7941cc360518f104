import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll } from 'vitest';

const created: string[] = [];
afterAll(() => {
  // A client a test ran may still be writing its files as it exits (Claude Code's home): retried,
  // and a folder it keeps filling is left to the system's temporary folder, said, not failed.
  for (const dir of created.splice(0))
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (error) {
      console.warn(`left ${dir}: ${(error as Error).message}`);
    }
});

/** A fresh temporary folder, removed after the test file. */
export function tempDir(prefix = 'collab-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
}

/**
 * A real git repository with one commit holding `files`. Its commit message is unique: two
 * repositories made in one second with the same files would otherwise hold the very same commit,
 * and so be one repository (named by its root commit).
 */
export function gitRepo(files: Record<string, string> = { 'README.md': '# repo\n' }): string {
  const dir = tempDir('collab-repo-');
  git(dir, 'init', '-q', '-b', 'main');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', `initial (${basename(dir)})`);
  return dir;
}

/** A clone of `origin` in a fresh folder, named `name`. */
export function cloneOf(origin: string, name = 'app'): string {
  const dir = join(tempDir('collab-clone-'), name);
  git(origin, 'clone', '-q', origin, dir);
  return dir;
}
