/**
 * Text written by another session, made safe to show a model or a terminal: control characters
 * (escape sequences, carriage returns, NULs…) are dropped, its length is bounded, and each line is
 * quoted, so that it reads as quoted data and cannot pass itself off as our own words.
 */

/**
 * Characters no one-line name from a client may hold (a path, an id): C0 and C1 controls (NUL,
 * line breaks, tabs, escapes), the line and paragraph separators, and the bidirectional marks,
 * overrides and isolates. Shown to another session, such a name is one line of plain text: these
 * could make it pass for our own words, or read as another name.
 */
export const LINE_CONTROLS =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

// C0 and C1 controls except tab and newline; the line and paragraph separators; the bidirectional
// overrides and isolates.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Untrusted text as an error message quotes it: in double quotes, its controls, line breaks and
 * quotes written as escapes (`\u000a`, `\u202e`, `\"`), bounded.
 */
export function shown(text: string, max = 80): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return `"${cut.replace(/["\\]|[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) =>
    c === '"' || c === '\\' ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )}"`;
}

/**
 * A short token another session or file chose (a branch, a version, a file name): as it is when it
 * is one word of letters, digits and punctuation paths use, else quoted as `shown` quotes it, so
 * that spaces, line breaks or invisible marks in it read as data.
 */
export function word(text: string, max = 80): string {
  return text.length <= max && /^[\p{L}\p{N}._+@/:^~<>=*-]+$/u.test(text) ? text : shown(text, max);
}

/** Untrusted text without its controls (tabs and line breaks stay): what a page may show as it is. */
export function withoutControls(text: string): string {
  return text.replace(CONTROLS, '');
}

/** One line of untrusted text (a name, an intent): controls and line breaks gone, bounded. */
export function inline(text: string, max = 120): string {
  const flat = text.replace(CONTROLS, '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * A session's name as given by a client (its own name, or one it chose): one line, bounded, and
 * without double quotes (every answer shows a name in them: one could close them and go on as
 * our own words).
 */
export function sessionName(text: string, max: number): string {
  return inline(text.replace(/"/g, "'"), max);
}

/** A block of untrusted text, bounded and quoted line by line with `> `. */
export function quoteBlock(
  text: string,
  max = 800,
  maxLines = 20,
  cutNote = '[… cut; the full text is in collab_message_list]',
): string {
  let body = text.replace(/\r\n?/g, '\n').replace(CONTROLS, '');
  let cut = body.length > max;
  if (cut) body = body.slice(0, max);
  let lines = body.split('\n');
  if (lines.length > maxLines) {
    lines = lines.slice(0, maxLines);
    cut = true;
  }
  if (cut) lines.push(cutNote);
  return lines.map((l) => `> ${l}`).join('\n');
}

/**
 * The end of a program's output run on other sessions' work (a check's): controls gone, lines
 * kept, its last `max` characters (where a failure is said).
 */
export function outputTail(text: string, max: number): string {
  const body = text.replace(/\r\n?/g, '\n').replace(CONTROLS, '');
  return body.length > max ? `[… cut]${body.slice(-max)}` : body;
}
