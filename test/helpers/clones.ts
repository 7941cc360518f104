/**
 * One repository in two clones on one machine, a server over stdio in each (with hooks), sharing one
 * home: the setting of the clones and symbol-claims end-to-end tests.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CLI, connectStdio } from './stdio.js';
import { git, gitRepo, tempDir } from './temp.js';

type Closable = { close: () => Promise<unknown> };
const open: Closable[] = [];

/** Closes every server the helpers started (a test file's `afterEach`). */
export async function closeServers(): Promise<void> {
  await Promise.all(open.splice(0).map((c) => c.close()));
}

export const FILES = { 'src/api/auth.py': 'def login(user):\n    pass\n', 'src/ui/app.tsx': 'export {}\n' };

/** An upstream repository and two clones of it, each named by the same remote URL however spelled. */
export function twoClones(files: Record<string, string> = FILES) {
  const upstream = gitRepo(files);
  const clone = (url: string) => {
    const dir = join(tempDir('collab-clone-'), 'api');
    git(tempDir(), 'clone', '-q', upstream, dir);
    git(dir, 'remote', 'set-url', 'origin', url);
    return dir;
  };
  return {
    alice: clone('git@github.com:acme/api.git'),
    bob: clone('https://github.com/Acme/api'),
  };
}

/**
 * A server in each clone over stdio, a session "alice" and "bob" started in them (after `before`
 * has run on the clones).
 */
export async function aliceAndBob(
  files?: Record<string, string>,
  before?: (clones: { alice: string; bob: string }) => void,
) {
  const home = tempDir('collab-home-');
  const clones = twoClones(files);
  before?.(clones);
  const a = await server(clones.alice, home);
  const b = await server(clones.bob, home);
  await a.call('collab_session_start', { name: 'alice', project_root: clones.alice });
  await b.call('collab_session_start', { name: 'bob', project_root: clones.bob });
  return { home, ...clones, a, b };
}

export async function server(cwd: string, home: string) {
  const s = await connectStdio({ cwd, home, hooks: true });
  open.push(s);
  return s;
}

/** `git commit` in a clone, its pre-commit guard reading `home`. */
export function commit(home: string, cwd: string, message: string) {
  return spawnSync('git', ['commit', '-qm', message], {
    cwd,
    env: {
      ...process.env,
      SESSION_COLLAB_HOME: home,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
    encoding: 'utf8',
  });
}

export function cli(home: string, cwd: string, ...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    env: { ...process.env, SESSION_COLLAB_HOME: home },
    encoding: 'utf8',
  });
}
