/**
 * The commit guard's rules, applied to work asking to land: changes to files (or symbols) another
 * live session holds, and stale work — made under a claim that lapsed and was taken since.
 */
import { describeFences } from '../claims/claim-fences.js';
import type { Viewpoint } from '../claims/claim-types.js';
import type { LandingServices } from './landing-service.js';

/** Files of one request checked for holders at a time (each is a read of the claims over it). */
const HELD_FILES = 2_000;

/** Why a request is refused: a code, a reason to read, and what was found. */
export interface Refusal {
  code: string;
  reason: string;
  details: unknown;
}

/**
 * What of `files` (changed by the request's commits, `range`) another live session holds, or the
 * requester held, lost and has not claimed again: a refusal, or null when none.
 */
export async function heldWork(
  services: LandingServices,
  request: { session_id: string | null; project_id: string; worktree: string },
  files: string[],
  range: { base: string; head: string },
): Promise<Refusal | null> {
  // Every file is judged, a bounded batch at a time: work padded with files that sort first must
  // not push a held one out of the check.
  for (let at = 0; at < files.length; at += HELD_FILES) {
    const refusal = await heldAmong(services, request, files.slice(at, at + HELD_FILES), range);
    if (refusal) return refusal;
  }
  return null;
}

async function heldAmong(
  services: LandingServices,
  request: { session_id: string | null; project_id: string; worktree: string },
  files: string[],
  range: { base: string; head: string },
): Promise<Refusal | null> {
  const { enforcement } = services;
  const viewer: Viewpoint = {
    id: request.session_id,
    project_id: request.project_id,
    worktree: request.worktree,
  };
  const action = 'Landing this work';
  const claimed = await enforcement.checkPaths(viewer, files, request.worktree, action);
  const verdict = await enforcement.narrowToCommit(viewer, claimed, action, range, 'agent');
  const fences = await enforcement.fences(viewer, files);
  if (verdict.reason)
    return {
      code: 'HELD',
      reason: verdict.reason,
      details: {
        held: verdict.conflicts.map((c) => ({
          file: c.file,
          session: c.session,
          session_id: c.session_id,
          claim_id: c.claim_id,
        })),
      },
    };
  if (fences.length > 0)
    return {
      code: 'STALE',
      reason: describeFences(fences).replace('this commit includes', 'this work includes'),
      details: { stale: fences },
    };
  return null;
}
