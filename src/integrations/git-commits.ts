import { gitOutputAsync } from './git.js';

export interface CommitMade {
  /** When HEAD moved to it, in ms (whole seconds). */
  at: number;
  hash: string;
  /** The reflog's line: `commit: …`, `commit (amend): …`, `commit (merge): …`. */
  subject: string;
  /** The files it changed (at most `FILES` of them). */
  files: string[];
}

const SUBJECT_CHARS = 200;
const FILES = 50;

/**
 * The commits made in one worktree since `since`, newest first, at most `limit`: read from its
 * HEAD's reflog, which each worktree keeps for itself (a commit made in another copy is not here).
 * A folder that is gone or not a repository has none.
 */
export async function commitsMadeIn(worktree: string, since: number, limit: number): Promise<CommitMade[]> {
  let out: string;
  try {
    out = await gitOutputAsync(
      worktree,
      [
        'log',
        '--walk-reflogs',
        '--date=unix',
        '--format=%x1e%gd%x09%h%x09%gs',
        '--name-only',
        '-n',
        String(limit * 4),
        'HEAD',
      ],
      3_000,
      4 * 1024 * 1024,
    );
  } catch {
    return [];
  }
  const commits: CommitMade[] = [];
  for (const entry of out.split('\x1e')) {
    const [head = '', ...names] = entry.split('\n');
    const [selector, hash, ...rest] = head.split('\t');
    const subject = rest.join(' ');
    const seconds = /@\{(\d+)\}$/.exec(selector ?? '')?.[1];
    if (!seconds || !hash || !subject.startsWith('commit')) continue;
    const at = Number(seconds) * 1000;
    if (at < since) break;
    const files = names.filter(Boolean).slice(0, FILES);
    commits.push({ at, hash, subject: subject.slice(0, SUBJECT_CHARS), files });
    if (commits.length === limit) break;
  }
  return commits;
}
