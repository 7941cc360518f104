import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppContext } from '../../app/context.js';
import { newHash } from '../../core/digest.js';
import { inline, quoteBlock } from '../../core/fence.js';
import { type FileChange, type Hunk, writtenBy } from '../../core/hunks.js';
import { languageOf } from '../../core/languages.js';
import { lineHunks } from '../../core/line-diff.js';
import { meetingHunks, toBase } from '../../core/merge-prediction.js';
import { describeChange, interfaceChanges, semanticConflicts } from '../../core/semantic.js';
import { definitionsOf, type SymbolSpan, symbolSpans, usesIn } from '../../integrations/symbols.js';
import type { Viewpoint } from '../claims/claim-types.js';
import { stateOf } from '../sessions/liveness.js';

/** Files larger than this are not read before an edit (a hook's time is short). */
const MAX_FILE_BYTES = 1024 * 1024;

function lines([start, count]: [number, number]): string {
  if (count === 0) return `after line ${start}`;
  return count === 1 ? `line ${start}` : `lines ${start}–${start + count - 1}`;
}

/** The blob id git gives a text (what a file is when a copy has not changed it). */
export function blobOf(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return newHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** An edit of one file as data: its text before and after, and its hunks against the copy's base. */
export interface ProposedEdit {
  path: string;
  current: string;
  proposed: string;
  /** The edit's hunks: `base` in lines of the version the copy started from, `next` in the new text. */
  hunks: Hunk[];
  /** The edit's hunks with `base` in lines of the current text. */
  local: Hunk[];
  /** The base's blob of the file for this copy (null: the base has no such file). */
  baseBlob: string | null;
  /** Whether this copy's own change to the file is compared as a whole (then lines say nothing). */
  wholeFile: boolean;
  /** The symbols of `current`, once parsed. */
  currentSpans?: SymbolSpan[];
}

/**
 * Reads the edit `propose` makes to `path` (relative to the viewer's worktree) from its current text:
 * null when it writes nothing, or cannot be read within a hook's time.
 */
export async function readEdit(
  app: AppContext,
  viewer: Viewpoint,
  path: string,
  propose: (current: string) => string | null,
): Promise<ProposedEdit | null> {
  let current: string;
  try {
    current = readFileSync(join(viewer.worktree, path), 'utf8');
  } catch {
    current = ''; // a new file
  }
  if (current.length > MAX_FILE_BYTES) return null;
  const proposed = propose(current);
  if (proposed === null) return null;
  const mine: FileChange | undefined = viewer.id
    ? (await app.store.changes.filesOf(viewer.id, [path]))[0]
    : undefined;
  // Without a change of its own to the file, the copy's text is its base.
  const baseBlob = mine ? mine.baseBlob : current === '' ? null : blobOf(current);
  return editOf(
    path,
    current,
    proposed,
    mine?.hunks ?? [],
    baseBlob,
    mine !== undefined && mine.level !== 'lines',
  );
}

/**
 * An edit from `current` to `proposed`, where the copy's own change (`ownHunks`, from the base
 * whose blob is `baseBlob`) leads to `current`: null when it changes nothing or is past the limits
 * of a line diff.
 */
export function editOf(
  path: string,
  current: string,
  proposed: string,
  ownHunks: Hunk[],
  baseBlob: string | null,
  wholeFile: boolean,
): ProposedEdit | null {
  const edit = lineHunks(current, proposed);
  if (edit === null || edit.length === 0) return null;
  const bare = (base: [number, number], next: [number, number]): Hunk => ({
    base,
    next,
    digest: '',
    excerpt: '',
  });
  return {
    path,
    current,
    proposed,
    hunks: edit.map((h) => bare(toBase(h.base, ownHunks), h.next)),
    local: edit.map((h) => bare(h.base, h.next)),
    baseBlob,
    wholeFile,
  };
}

/**
 * Before an edit: whether the lines it would write meet another live session's uncommitted change
 * to the same file, by git's merge rule (the two would conflict when both merge). Read from the
 * changes recorded for each session, with no git and no parser (a hook's budget); null when clear,
 * else the reason to show. `path` is relative to the viewer's worktree; `propose` gives the file's
 * text after the edit from its current text.
 */
export async function editMeetsChanges(
  app: AppContext,
  viewer: Viewpoint,
  path: string,
  propose: (current: string) => string | null,
): Promise<string | null> {
  const { store } = app;
  const others = await store.changes.othersTouching(viewer.project_id, viewer.id, [path]);
  if (others.size === 0) return null;
  const edit = await readEdit(app, viewer, path, propose);
  if (edit === null || edit.wholeFile) return null;
  const skip = new Set(viewer.also ?? []);
  const meetings: string[] = [];
  for (const [otherId, files] of others) {
    if (skip.has(otherId)) continue;
    const theirs = files[0]!;
    if (theirs.level !== 'lines' || theirs.baseBlob !== edit.baseBlob) continue;
    const met = meetingHunks(edit.hunks, theirs.hunks);
    if (met.length === 0) continue;
    const other = await store.sessions.get(otherId);
    if (!other || stateOf(app, other) !== 'active') continue;
    const symbols = [...new Set(met.flatMap(([, h]) => h.symbols ?? []))];
    meetings.push(
      `- session "${inline(other.name, 60)}" (session_id ${other.id}) changed ${[...new Set(met.map(([, h]) => lines(h.base)))].join(', ')}${symbols.length > 0 ? ` (${symbols.map((s) => inline(s, 80)).join(', ')})` : ''}, where this edit writes ${[...new Set(met.map(([h]) => lines(h.base)))].join(', ')}; its change there:`,
      quoteBlock(met[0]![1].excerpt, 600, 6, '[… cut]'),
    );
  }
  if (meetings.length === 0) return null;
  return [
    `session-collab: this edit of ${inline(path, 300)} would conflict, when both are merged, with changes another session has not committed yet (lines of the version both started from):`,
    ...meetings,
    'Look at both first (collab_check shows their lines), message that session with collab_message_send, or ask the user whether to go ahead.',
  ].join('\n');
}

/**
 * Before an edit: whether it would make a conflict git cannot see with another live session's
 * uncommitted work (core/semantic.ts) — it changes the interface of a function the other's new code
 * calls, or adds a call to one whose interface the other changed: null when clear, else the reason
 * to show. Parses the file only when some other session has such changes recorded in the project.
 */
export async function editBreaksUses(
  app: AppContext,
  viewer: Viewpoint,
  path: string,
  propose: (current: string) => string | null,
): Promise<string | null> {
  if (!languageOf(path)) return null;
  const others = await app.store.changes.semanticOthers(viewer.project_id, viewer.id, 500);
  const skip = new Set(viewer.also ?? []);
  if ([...others.keys()].every((id) => skip.has(id))) return null;
  const edit = await readEdit(app, viewer, path, propose);
  if (edit === null) return null;
  const before = symbolSpans(path, edit.current);
  const after = symbolSpans(path, edit.proposed);
  if (!before || !after) return null;
  const mine = {
    path,
    interface: interfaceChanges(definitionsOf(before), definitionsOf(after)),
    uses: usesIn(path, edit.proposed, writtenBy(edit.local)) ?? [],
  };
  if (mine.interface.length === 0 && mine.uses.length === 0) return null;
  const told: string[] = [];
  for (const [otherId, files] of others) {
    if (skip.has(otherId)) continue;
    const met = semanticConflicts([mine], files);
    if (met.length === 0) continue;
    const other = await app.store.sessions.get(otherId);
    if (!other || stateOf(app, other) !== 'active') continue;
    for (const c of met.slice(0, 3))
      told.push(
        c.changedBy === 'ours'
          ? `- ${describeChange(c.change, 'this edit')}, which session "${inline(other.name, 60)}" (session_id ${other.id}) calls in its uncommitted ${inline(c.usedIn, 200)}:${c.use.line}:\n${quoteBlock(c.use.text, 200, 1, '[… cut]')}`
          : `- this edit calls ${inline(c.use.name, 80)}, whose interface session "${inline(other.name, 60)}" (session_id ${other.id}) changed in its uncommitted ${inline(c.definedIn, 200)}: ${describeChange(c.change, 'it')}`,
      );
  }
  if (told.length === 0) return null;
  return [
    `session-collab: git would merge this edit of ${inline(path, 300)} with another session's uncommitted work, and the build would break:`,
    ...told,
    'Agree on the interface first (collab_message_send), or ask the user whether to go ahead.',
  ].join('\n');
}
