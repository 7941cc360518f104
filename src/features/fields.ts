import { z } from 'zod';
import type { AppContext } from '../app/context.js';
import { isBranchName } from '../core/branch-name.js';
import { atMost, LIMITS, type LimitName } from '../core/limits.js';
import type { IdKind } from '../store/id-prefixes.js';
import { fullId } from './id-references.js';

/**
 * Fields the tools share. Sizes are checked against LIMITS when a call arrives (config.json may
 * change them), with a message that names the limit and its key in config.json's `limits`; the listed schemas leave
 * sizes out (they cost the client's context and are enforced here anyway).
 */
function within(limit: LimitName, what: string) {
  return (value: { length: number }, ctx: z.RefinementCtx) => {
    if (value.length > LIMITS[limit])
      ctx.addIssue({
        code: 'custom',
        message: `${value.length} ${what} (${atMost(limit)})`,
      });
  };
}

/** A string of at most LIMITS[limit] characters (and at least `min`). */
export const text = (limit: LimitName, min = 1) =>
  z.string().min(min).superRefine(within(limit, 'characters'));

/** Text that must say something: as `text`, and refused when it holds only whitespace. */
export const words = (limit: LimitName) => text(limit).regex(/\S/, 'holds only whitespace: say something');

/** A list of at most LIMITS[limit] items. */
export const list = <T extends z.ZodType>(item: T, limit: LimitName = 'listItems') =>
  z.array(item).superRefine(within(limit, 'items'));

/** Which kind of id a field holds: the tools' id fields accept the start of an id (see id-references.ts). */
export const idKinds = z.registry<{ kind: IdKind }>();

/** An id of `kind` given by a client (or its first characters): bounded like any input. */
export const idOf = (kind: IdKind) => text('idChars').register(idKinds, { kind });

/**
 * The optional `session_id` every tool takes: omitted, it is the connection's own session. The server
 * instructions say so once, rather than every schema.
 */
export const sessionIdField = idOf('session').optional();

/** A session named by its id, the start of its id, or its name. */
export const sessionRefField = text('idChars');

/** A branch name git allows (never one that reads as an option on its command line). */
export const branchField = text('idChars').refine(isBranchName, 'is not a branch name git allows');

/** An id that is not generated (a project's, which may be a name): taken whole, as given. */
export const idField = text('idChars');

/** `limit` of a paginated list: how many rows one page holds. */
export const limitField = (fallback: number, max: number) =>
  z.number().int().min(1).max(max).default(fallback);

/** `cursor` of a paginated list: the `next_cursor` of the page before. */
/** Where a page starts: the `next_cursor` of the previous one (the name says it: no description). */
export const cursorField = z.string().min(1).max(400).optional();

/** In every paginated answer: where the next page starts, null on the last one. */
export const nextCursorField = z.string().nullable();

/** The line a page's text ends with when there is more. */
export const moreNote = (next: string | null) => (next ? `\nMore: pass cursor "${next}".` : '');

/** The fields of an input schema that hold ids, with their kind (found once per schema). */
const idFieldsOf = new WeakMap<z.ZodObject, [string, IdKind][]>();

function idFields(schema: z.ZodObject): [string, IdKind][] {
  let fields = idFieldsOf.get(schema);
  if (!fields) {
    fields = [];
    for (const [name, field] of Object.entries(schema.shape)) {
      const kind = idKindOf(field as z.ZodType);
      if (kind) fields.push([name, kind]);
    }
    idFieldsOf.set(schema, fields);
  }
  return fields;
}

/** The kind of id a field holds (through optional, default and list wrappers), if it holds one. */
export function idKindOf(field: z.ZodType): IdKind | undefined {
  const own = idKinds.get(field)?.kind;
  if (own) return own;
  const def = field._zod.def as { type: string; innerType?: z.ZodType; element?: z.ZodType };
  if (def.type === 'optional' || def.type === 'default' || def.type === 'nullable')
    return def.innerType ? idKindOf(def.innerType) : undefined;
  if (def.type === 'array') return def.element ? idKindOf(def.element) : undefined;
  return undefined;
}

/**
 * A tool's parsed input with every id field (declared with `idOf` in its schema) made whole: a
 * caller may give any id by its start, as `session-collab status` shows them, looked up in the
 * caller's project (`project`, asked only when a start is to be looked up).
 */
export async function withFullIds<T extends Record<string, unknown>>(
  app: AppContext,
  schema: z.ZodObject,
  input: T,
  project: () => Promise<string>,
): Promise<T> {
  const fields = idFields(schema);
  if (fields.length === 0) return input;
  const out: Record<string, unknown> = { ...input };
  for (const [name, kind] of fields) {
    const value = out[name];
    if (typeof value === 'string') out[name] = await fullId(app, kind, value, project);
    else if (Array.isArray(value)) {
      // One at a time, each distinct id once: a list's cost stays that of its distinct entries.
      const whole = new Map<string, string>();
      for (const v of value)
        if (typeof v === 'string' && !whole.has(v)) whole.set(v, await fullId(app, kind, v, project));
      out[name] = value.map((v) => (typeof v === 'string' ? whole.get(v) : v));
    }
  }
  return out as T;
}
