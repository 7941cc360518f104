import type { AppContext } from '../app/context.js';
import { CollabError } from '../core/errors.js';
import type { IdKind } from '../store/id-prefixes.js';

/** The fewest characters of an id that name it (ids are long; people and agents type the start). */
export const MIN_PREFIX = 4;

/** What an id may be made of; anything else is looked up as given. */
const ID_CHARACTERS = /^[A-Za-z0-9_-]+$/;

const NOUNS: Record<IdKind, string> = {
  session: 'session',
  claim: 'claim',
  message: 'message',
  question: 'question',
  run: 'run',
  project: 'project',
  work_item: 'work item',
  review: 'review',
  suggestion: 'suggestion',
};

/**
 * The id a caller means by `ref`: `ref` itself when it is an id of `kind`; else the one id of that
 * kind it starts (given at least MIN_PREFIX characters); else `ref` unchanged, for the caller's own
 * lookup to say it was not found. A start shared by several ids is an error that lists them.
 */
export async function fullId(app: AppContext, kind: IdKind, ref: string): Promise<string> {
  if (ref.length < MIN_PREFIX || !ID_CHARACTERS.test(ref)) return ref;
  const { ids } = app.store;
  if (await ids.exists(kind, ref)) return ref;
  const found = await ids.startingWith(kind, ref.toLowerCase(), 6);
  if (found.length === 1) return found[0]!;
  if (found.length > 1)
    throw new CollabError(
      'ID_AMBIGUOUS',
      `"${ref}" is the start of ${found.length > 5 ? 'more than 5' : found.length} ${NOUNS[kind]} ids: ${found.slice(0, 5).join(', ')}.`,
      'Give more of the id, or the whole id.',
    );
  return ref;
}
