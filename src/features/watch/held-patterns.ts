/** What the watcher of writes no hook saw guards: the live patterns of the projects it watches. */
import type { AppContext } from '../../app/context.js';
import { pathOf } from '../../core/claim-target.js';
import { type CompiledGlob, glob } from '../../core/glob.js';
import { isGlob, literalBase } from '../../core/paths.js';
import { stateOf } from '../sessions/liveness.js';

/** Patterns read per project, at most. */
export const MAX_PATTERNS = 2_000;

export interface Held {
  /** The file it names, or a glob's literal base folder. */
  base: string;
  literal: boolean;
  glob: CompiledGlob;
  sessionId: string;
}

/** The live patterns of these projects, by project, each with its literal base. */
export async function heldPatterns(
  app: AppContext,
  projects: string[],
  capped: () => void,
): Promise<Map<string, Held[]>> {
  const held = new Map<string, Held[]>();
  for (const projectId of projects) {
    const rows = await app.store.claims.livePatternsOf(projectId, MAX_PATTERNS);
    if (rows.length === MAX_PATTERNS) capped();
    const list: Held[] = [];
    for (const row of rows) {
      if (stateOf(app, { ...row, status: row.session_status }) !== 'active') continue;
      const path = pathOf(row.pattern);
      const literal = !isGlob(path);
      list.push({
        base: literal ? path : literalBase(path),
        literal,
        glob: glob(path),
        sessionId: row.session_id,
      });
    }
    if (list.length > 0) held.set(projectId, list);
  }
  return held;
}
