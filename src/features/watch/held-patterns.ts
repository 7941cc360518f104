/** What the watcher of writes no hook saw guards: the live patterns of the projects it watches. */

import { join, relative, sep } from 'node:path';
import type { AppContext } from '../../app/context.js';
import { pathOf } from '../../core/claim-target.js';
import { glob, matchPath } from '../../core/glob.js';
import { isGlob, literalBase } from '../../core/paths.js';
import { filesIn, foldersBelow } from '../../integrations/folder-watch.js';
import type { PatternPageKey } from '../../store/claim-patterns-store.js';
import { stateOf } from '../sessions/liveness.js';
import { slices } from '../slices.js';
import { IGNORED_NAMES, ignoredPath } from './watched-files.js';

/** Patterns read per project, at most. */
export const MAX_PATTERNS = 2_000;

export interface Held {
  /** The file it names, or a glob's literal base folder. */
  base: string;
  literal: boolean;
  /** The path pattern (compiled when a path is matched against it: `heldMatches`). */
  path: string;
  sessionId: string;
}

/** Whether `rel` (a path relative to the worktree) is one that `h` holds. */
export function heldMatches(h: Held, rel: string): boolean {
  if (h.base !== '' && rel !== h.base && !rel.startsWith(`${h.base}/`)) return false;
  return matchPath(glob(h.path), rel);
}

/**
 * The live patterns of these projects, by project, each with its literal base. Each session's
 * liveness is judged once, whatever the number of its patterns; the globs are compiled only when
 * a path is matched. In slices, between which the server answers its calls.
 */
export async function heldPatterns(
  app: AppContext,
  projects: string[],
  capped: () => void,
): Promise<Map<string, Held[]>> {
  const held = new Map<string, Held[]>();
  const turn = slices();
  for (const projectId of projects) {
    const list: Held[] = [];
    const live = new Map<string, boolean>();
    for await (const row of livePatterns(app, projectId, capped)) {
      await turn();
      let active = live.get(row.session_id);
      if (active === undefined) {
        active =
          stateOf(app, { ...row, status: row.session_status, created_at: row.session_created_at }) ===
          'active';
        live.set(row.session_id, active);
      }
      if (!active) continue;
      const path = pathOf(row.pattern);
      const literal = !isGlob(path);
      list.push({ base: literal ? path : literalBase(path), literal, path, sessionId: row.session_id });
    }
    if (list.length > 0) held.set(projectId, list);
  }
  return held;
}

/** Patterns read in one statement: a page costs a few milliseconds at most, then the loop is free. */
const PAGE = 50;

/** Up to MAX_PATTERNS live patterns of a project, read a page at a time; `capped` when there are more. */
async function* livePatterns(app: AppContext, projectId: string, capped: () => void) {
  let after: PatternPageKey | null = null;
  for (let read = 0; read < MAX_PATTERNS; ) {
    const limit = Math.min(PAGE, MAX_PATTERNS - read);
    const rows = await app.store.claimPatterns.livePatternsOf(projectId, limit, after);
    yield* rows;
    if (rows.length < limit) return;
    read += rows.length;
    after = rows.at(-1)!;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  capped();
}

/**
 * The held files of a worktree that can be named without walking it: files named, and those
 * directly in a glob's base. In slices (`turn`), as `heldPatterns`.
 */
export async function heldFiles(
  worktree: string,
  held: Held[],
  limit: number,
  turn: () => Promise<void>,
): Promise<string[]> {
  const out = new Set<string>();
  const listed = new Map<string, string[]>();
  for (const h of held) {
    await turn();
    const path = join(worktree, h.base);
    if (h.literal) out.add(path);
    else {
      if (!listed.has(path)) listed.set(path, filesIn(path, 500));
      for (const f of listed.get(path)!)
        if (heldMatches(h, relative(worktree, f).split(sep).join('/'))) out.add(f);
    }
    if (out.size >= limit) break;
  }
  return [...out];
}

/**
 * The folders to watch in a worktree (each on its own): each held file's folder, and each glob's
 * base with the folders below it (ignored ones skipped), at most `limit`. In slices (`turn`).
 */
export async function heldFolders(
  worktree: string,
  held: Held[],
  limit: number,
  turn: () => Promise<void>,
): Promise<string[]> {
  const out = new Set<string>();
  for (const h of held) {
    if (out.size >= limit) break;
    await turn();
    if (h.literal) {
      const cut = h.base.lastIndexOf('/');
      const rel = cut <= 0 ? '' : h.base.slice(0, cut);
      if (!ignoredPath(rel)) out.add(rel === '' ? worktree : join(worktree, rel));
    } else if (!ignoredPath(h.base)) {
      const root = h.base === '' ? worktree : join(worktree, h.base);
      if (!out.has(root)) for (const f of foldersBelow(root, IGNORED_NAMES, limit - out.size)) out.add(f);
    }
  }
  return [...out];
}
