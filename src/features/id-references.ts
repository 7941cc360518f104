import type { AppContext } from '../app/context.js';
import { CollabError } from '../core/errors.js';
import type { IdKind } from '../store/id-prefixes.js';

/** The fewest characters of an id's random part that name it (people and agents type the start). */
export const MIN_PREFIX = 4;

/** What an id may be made of; anything else is looked up as given. */
const ID_CHARACTERS = /^[A-Za-z0-9_-]+$/;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Each kind's generated ids: the fixed head they start with (a start must hold MIN_PREFIX
 * characters past it), and the shape of a whole one (taken as given, with no lookup).
 */
const KINDS: Record<IdKind, { noun: string; head: string; whole: RegExp }> = {
  session: { noun: 'session', head: '', whole: UUID },
  claim: { noun: 'claim', head: '', whole: UUID },
  message: { noun: 'message', head: '', whole: UUID },
  question: { noun: 'question', head: '', whole: UUID },
  run: { noun: 'run', head: '', whole: UUID },
  landing: { noun: 'landing', head: '', whole: UUID },
  work_item: { noun: 'work item', head: 'work_', whole: /^work_[0-9a-f]{8}$/ },
  review: { noun: 'review', head: 'review_', whole: /^review_[0-9a-f]{8}$/ },
  suggestion: { noun: 'suggestion', head: 'sugg_', whole: /^sugg_[0-9a-f]{8}$/ },
};

/**
 * Where a start is looked for: the caller's project (a function, asked only when a start is to be
 * looked up), or null for the whole database (the person at this machine, who owns it).
 */
export type IdScope = (() => Promise<string>) | null;

/**
 * The id a caller means by `ref`: `ref` itself when it is a whole id of `kind` (of any project,
 * as always); else the one id of that kind, in `scope`, that it starts (given at least MIN_PREFIX
 * characters past the kind's fixed head); else `ref` unchanged, for the caller's own lookup to say
 * it was not found. A start shared by several ids is an error that lists them.
 */
export async function fullId(app: AppContext, kind: IdKind, ref: string, scope: IdScope): Promise<string> {
  const { noun, head, whole } = KINDS[kind];
  if (whole.test(ref) || ref.length < head.length + MIN_PREFIX || !ID_CHARACTERS.test(ref)) return ref;
  const start = ref.toLowerCase(); // generated ids are lowercase
  if (!start.startsWith(head)) return ref;
  const { ids } = app.store;
  if (await ids.exists(kind, ref)) return ref; // an id chosen by an orchestrator, say
  const found = await ids.startingWith(kind, start, 6, scope ? await scope() : null);
  if (found.length === 1) return found[0]!;
  if (found.length > 1)
    throw new CollabError(
      'ID_AMBIGUOUS',
      `"${ref}" is the start of ${found.length > 5 ? 'more than 5' : found.length} ${noun} ids${scope ? ' in this project' : ''}: ${found.slice(0, 5).join(', ')}.`,
      'Give more of the id, or the whole id.',
    );
  return ref;
}
