/**
 * The clients' JSON settings files as their owners write them: comments and trailing commas
 * allowed (Claude Code, Gemini CLI and Cursor accept both), read and edited in place with
 * `jsonc-parser`, so that an edit changes only the values it sets and the rest of the text (its
 * comments, order and formatting) stays as the user wrote it.
 */
import {
  applyEdits,
  type Edit,
  type FormattingOptions,
  format,
  type JSONPath,
  modify,
  type ParseError,
  parse,
  printParseErrorCode,
} from 'jsonc-parser';
import { CollabError } from '../core/errors.js';

const HINT = 'Fix it (or move it away) and run init again; nothing was written.';

/** Where in a text an offset is, for a person: line and column from 1. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/** A settings file's object (comments allowed); {} for a missing or empty file. */
export function readSettings(text: string | null, path: string): Record<string, unknown> {
  if (text === null || text.trim() === '') return {};
  const errors: ParseError[] = [];
  const data: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first)
    throw new CollabError(
      'CONFIG_ERROR',
      `${path} is not valid JSON (${printParseErrorCode(first.error)} at ${position(text, first.offset)}).`,
      HINT,
    );
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new CollabError('CONFIG_ERROR', `${path} does not hold a JSON object.`, HINT);
  return data as Record<string, unknown>;
}

/** The indentation and line ends a file already uses (two spaces and \n for a new one). */
function formattingOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)["/}\]]/.exec(text)?.[1] ?? '  ';
  return {
    insertSpaces: !indent.startsWith('\t'),
    tabSize: indent.startsWith('\t') ? 1 : indent.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}

/** The value at `path` in parsed data (undefined where there is none). */
function valueAt(data: unknown, path: JSONPath): unknown {
  let at = data;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at;
}

/**
 * The settings text with each `path` set to its value (undefined: removed); a value that is already
 * there is not touched. A missing or empty file becomes a new object.
 */
export function editSettings(
  text: string | null,
  path: string,
  edits: Array<{ at: JSONPath; value: unknown }>,
): string {
  const data = readSettings(text, path);
  const fresh = text === null || text.trim() === '';
  let out = fresh ? '{}\n' : text;
  // A file written on one line stays on one line; any other is laid out as it is indented.
  const formattingOptions = fresh || out.trim().includes('\n') ? formattingOf(out) : null;
  for (const edit of edits) {
    const { at, value } = throughObjects(data, edit);
    if (JSON.stringify(valueAt(data, at)) === JSON.stringify(value)) continue;
    out = formattedEdit(out, modify(out, at, value, {}), formattingOptions);
  }
  return out;
}

/**
 * `text` with `edits` applied and laid out as the file is, only where they wrote: jsonc-parser's own
 * formatting of an edit takes in the whole lines around it, and reformatted a neighbour written on
 * the same line (another server's entry in `.mcp.json`).
 */
function formattedEdit(text: string, edits: Edit[], options: FormattingOptions | null): string {
  let out = text;
  // From the last: an edit's offsets are in the text before the others (jsonc-parser gives one).
  for (const edit of [...edits].sort((a, b) => b.offset - a.offset)) {
    out = applyEdits(out, [edit]);
    if (options === null) continue;
    let start = edit.offset;
    let end = start + edit.content.length;
    // What was taken out leaves its neighbours side by side: the space between them is laid out.
    if (edit.content.length === 0) {
      while (start > 0 && /\s/.test(out[start - 1]!)) start--;
      while (end < out.length && /\s/.test(out[end]!)) end++;
    }
    // The range takes in the characters on either side, so that the breaks between them and the
    // edit are laid out too (an object that was empty); what lies outside the edit is kept.
    const from = Math.max(0, start - 1);
    const layout = format(
      out,
      { offset: from, length: Math.min(out.length, end + 1) - from },
      options,
    ).filter((e) => e.offset >= start && e.offset + e.length <= end);
    out = applyEdits(out, layout);
  }
  return out;
}

const isObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * An edit whose path runs through something that is not an object (`"hooks": "x"`) replaces that
 * thing with an object holding the value instead.
 */
function throughObjects(
  data: unknown,
  edit: { at: JSONPath; value: unknown },
): { at: JSONPath; value: unknown } {
  for (let depth = 1; depth < edit.at.length; depth++) {
    const parent = valueAt(data, edit.at.slice(0, depth));
    // An array is gone through by index.
    if (Array.isArray(parent) && typeof edit.at[depth] === 'number') continue;
    if (parent !== undefined && !isObject(parent)) {
      let value = edit.value;
      for (const key of edit.at.slice(depth).reverse()) value = { [key]: value };
      return { at: edit.at.slice(0, depth), value };
    }
  }
  return edit;
}
