import { statSync } from 'node:fs';
import { join } from 'node:path';
import { gitOutputAsync } from './git.js';
import { locateFolder } from './git-repo.js';

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
/** Worktrees whose last reading is kept, to answer again while their reflog has not changed. */
const CACHED = 100;

/** Per worktree: the reflog's size and time when read, and what was read then (since `since`). */
const readings = new Map<string, { stamp: string; since: number; limit: number; commits: CommitMade[] }>();

/** The size and time of a worktree's HEAD reflog: unchanged, so are its commits. Null when unreadable. */
function reflogStamp(worktree: string): string | null {
  try {
    const log = statSync(join(locateFolder(worktree).gitDir, 'logs', 'HEAD'));
    return `${log.size}:${log.mtimeMs}`;
  } catch {
    return null;
  }
}

/**
 * The commits made in one worktree since `since`, newest first, at most `limit`: read from its
 * HEAD's reflog, which each worktree keeps for itself (a commit made in another copy is not here).
 * A folder that is gone or not a repository has none.
 */
export async function commitsMadeIn(worktree: string, since: number, limit: number): Promise<CommitMade[]> {
  // A dashboard draws the timeline again on every change: git runs only when the reflog moved.
  const stamp = reflogStamp(worktree);
  const kept = readings.get(worktree);
  if (stamp !== null && kept?.stamp === stamp && kept.since <= since && kept.limit >= limit)
    return kept.commits.filter((c) => c.at >= since).slice(0, limit);
  const commits = await readCommits(worktree, since, limit);
  if (stamp !== null) {
    readings.delete(worktree);
    readings.set(worktree, { stamp, since, limit, commits });
    if (readings.size > CACHED) readings.delete(readings.keys().next().value!);
  }
  return commits;
}

async function readCommits(worktree: string, since: number, limit: number): Promise<CommitMade[]> {
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
