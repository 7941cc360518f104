import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll } from 'vitest';

const created: string[] = [];
afterAll(async () => {
  const dirs = created.splice(0);
  for (const dir of dirs) await stopProcessesOf(dir);
  // A client a test ran may still be writing its files as it exits (Claude Code's home): retried,
  // and a folder it keeps filling is left to the system's temporary folder, said, not failed.
  for (const dir of dirs)
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (error) {
      console.warn(`left ${dir}: ${(error as Error).message}`);
    }
});

/**
 * The processes of a home a test made that still run when its file ends: the machine's server
 * (clients' relays start it, and most tests leave it to stop when idle), and any relay or hook
 * left behind, which would start a server again in a home about to go. Killed before the home
 * goes, so that none outlives its test file. Only processes whose environment names this home
 * (Linux's /proc; elsewhere nothing is stopped).
 */
async function stopProcessesOf(home: string): Promise<void> {
  if (!['config.json', 'registry.db', 'hub.json'].some((f) => existsSync(join(home, f)))) return; // not a home
  const entry = `SESSION_COLLAB_HOME=${home}`;
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => pid !== process.pid && pid !== process.ppid && environOf(pid).includes(entry));
  } catch {
    return;
  }
  for (const pid of pids)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  // Gone, or dead and waiting for its parent to reap it (a zombie).
  const deadline = Date.now() + 5_000;
  for (const pid of pids)
    while (Date.now() < deadline) {
      try {
        if (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z')) break;
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
}

function environOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** A fresh temporary folder, removed after the test file. */
export function tempDir(prefix = 'collab-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

export function git(cwd: string, ...args: string[]): string {
  return gitWith({}, cwd, ...args);
}

/** `git`, with more of git's environment (a commit's dates, say). */
export function gitWith(env: Record<string, string>, cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
      ...env,
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
