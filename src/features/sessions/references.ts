import type { AppContext } from '../../app/context.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { inline } from '../../core/fence.js';
import type { ClaimWithFiles } from '../../store/claims-store.js';
import type { SessionRow, SessionWithCounts } from '../../store/sessions-store.js';
import { fullId, type IdScope, MIN_PREFIX } from '../id-references.js';
import type { CoreWiring } from '../tool-context.js';
import { stateOf } from './liveness.js';

/**
 * The session a person names: by its id, a unique prefix of it, or the name of one live session
 * (in `projectId` when given, else in any project). Ambiguity is an error listing the candidates.
 */
export async function sessionByReference(
  app: CoreWiring,
  reference: string,
  projectId: string | null,
): Promise<SessionRow> {
  const ref = reference.trim();
  if (!ref) throw invalidInput('Name a session: its name, or its id (the first characters are enough).');
  const exact = await app.store.sessions.get(ref);
  if (exact) return exact;
  const named = await app.store.sessions.activeNamed(projectId, ref);
  if (named.length > 1)
    throw new CollabError(
      'SESSION_AMBIGUOUS',
      `${named.length} live sessions are named "${ref}": ${named.map((s) => s.id.slice(0, 8)).join(', ')}.`,
      'Name it by id instead (the first characters are enough; `session-collab status` shows them).',
    );
  const found = await byNameOrStart(app, ref, named[0], projectId ? async () => projectId : null);
  if (found) return found;
  if (projectId && (await app.store.sessions.endedNamed(projectId, ref)))
    throw new CollabError(
      'SESSION_INACTIVE',
      `Session "${ref}" has ended.`,
      '`session-collab status --all` lists ended sessions too.',
    );
  throw new CollabError(
    'SESSION_NOT_FOUND',
    `No session named "${ref}", and none whose id starts so${projectId ? ' in this project' : ''}.`,
    '`session-collab status` lists the sessions with their names and ids.',
  );
}

/**
 * The session `ref` means, given the one live session it names (if any): that one, or the session
 * whose id it starts (in `scope`). A name that is also the start of another session's id is
 * ambiguous (a session may be named like the ids `status` shows), and so is a start of several.
 */
export async function byNameOrStart(
  app: AppContext,
  ref: string,
  named: SessionRow | undefined,
  scope: IdScope,
): Promise<SessionRow | undefined> {
  const started = await fullId(app, 'session', ref, scope);
  const byStart = started === ref ? undefined : await app.store.sessions.get(started);
  if (named && byStart && byStart.id !== named.id)
    throw new CollabError(
      'SESSION_AMBIGUOUS',
      `"${ref}" is the name of session ${named.id} and the start of the id of session "${inline(byStart.name, 60)}" (${byStart.id}).`,
      'Give the whole id of the one you mean.',
    );
  return named ?? byStart;
}

/** The claim a person names: by its id or the start of it. */
export async function claimByReference(app: CoreWiring, reference: string): Promise<ClaimWithFiles> {
  const ref = reference.trim();
  if (ref.length < MIN_PREFIX)
    throw invalidInput(`Name a claim by its id: at least its first ${MIN_PREFIX} characters.`);
  const claim = await app.store.claims.get(await fullId(app, 'claim', ref, null));
  if (!claim)
    throw new CollabError(
      'CLAIM_NOT_FOUND',
      `No claim whose id starts with "${ref}".`,
      '`session-collab status` lists the claims with their ids.',
    );
  return claim;
}

/** The project of a folder, when the store knows it (null otherwise). */
export async function projectOfFolder(app: CoreWiring, folder: string): Promise<string | null> {
  try {
    return (await app.store.projects.findFor(app.sessions.locate(folder)))?.id ?? null;
  } catch {
    return null;
  }
}

/**
 * Sessions the store still counts as active whose process is gone or that fell silent (in one
 * project, or in all): what `session-collab clean` ends.
 */
export async function deadSessions(app: CoreWiring, projectId: string | null): Promise<SessionWithCounts[]> {
  return (await app.store.sessions.list(projectId, false)).filter(
    (s) => s.status === 'active' && stateOf(app, s) !== 'active',
  );
}
