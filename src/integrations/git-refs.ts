import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/** Refs git keeps per worktree; every other ref lives in the shared git folder. */
const PER_WORKTREE = /^(?:HEAD|refs\/(?:bisect|worktree|rewritten)\/)/;

function read(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

function packed(commonDir: string, name: string): string | null {
  const text = read(join(commonDir, 'packed-refs'));
  if (text === null) return null;
  for (const line of text.split('\n')) {
    if (line.endsWith(` ${name}`)) {
      const sha = line.slice(0, line.indexOf(' '));
      return SHA.test(sha) ? sha : null;
    }
  }
  return null;
}

/**
 * The commit a ref names (`HEAD`, `refs/heads/main`, `refs/remotes/origin/HEAD`…), read from the git
 * folders themselves (a loose ref, else `packed-refs`), following symbolic refs: no `git` process.
 * Null when it cannot be told this way (no such ref, another ref storage): then git is asked.
 */
export function readRef(gitDir: string, commonDir: string, name: string, depth = 0): string | null {
  if (depth > 5) return null;
  const content = read(join(PER_WORKTREE.test(name) ? gitDir : commonDir, name));
  if (content !== null) {
    if (SHA.test(content)) return content;
    const target = /^ref:\s*(\S+)$/.exec(content);
    return target ? readRef(gitDir, commonDir, target[1]!, depth + 1) : null;
  }
  return name === 'HEAD' ? null : packed(commonDir, name);
}
