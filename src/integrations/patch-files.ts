import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** A patch larger than this is not read (within a hook's time): the folder stands for its files. */
const MAX_PATCH_BYTES = 2 * 1024 * 1024;

/**
 * The files a unified or git diff changes (their new and old names), less `strip` leading folders;
 * null when the file cannot be read or is too large.
 */
export function patchedPaths(file: string, strip: number): string[] | null {
  let text: string;
  try {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size > MAX_PATCH_BYTES) return null;
      const buffer = Buffer.alloc(size);
      readSync(fd, buffer, 0, size, 0);
      text = buffer.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
  const paths = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^(?:---|\+\+\+) ("?)([^\t"]+)\1/.exec(line);
    if (!m) continue;
    const name = m[2]!.trim();
    if (name === '/dev/null') continue;
    const parts = name.split('/').filter((p) => p !== '');
    if (parts.length > strip) paths.add(parts.slice(strip).join('/'));
  }
  return [...paths];
}

/** Files named in one `apply_patch` call, at most (a patch naming more stands for the whole worktree). */
const MAX_APPLY_PATCH_FILES = 1_000;

/**
 * The files a Codex `apply_patch` would write, as its patch names them (relative to the call's
 * folder): added, updated, deleted, and the new name of a moved file. Null for a patch too large to
 * read within a hook's time or naming too many files (then every file counts).
 */
export function applyPatchFiles(patch: string): string[] | null {
  if (patch.length > MAX_PATCH_BYTES) return null;
  const paths = new Set<string>();
  for (const line of patch.split('\n')) {
    const m = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$/.exec(line);
    if (!m) continue;
    paths.add(m[1]!);
    if (paths.size > MAX_APPLY_PATCH_FILES) return null;
  }
  return [...paths];
}

/**
 * The text a Codex `apply_patch` leaves in the file it names (its only file), from the file's
 * `current` text: an added file's lines, or an updated file's chunks applied in order (each chunk's
 * context and removed lines found after the previous chunk, after its `@@` anchor line when it has
 * one). Null when it cannot be told: several files, a move or a deletion, a chunk not found.
 */
export function applyPatchText(patch: string, current: string): string | null {
  if (patch.length > MAX_PATCH_BYTES) return null;
  const lines = patch.split('\n');
  const headers = lines.filter((l) => /^\*\*\* (Add File|Update File|Delete File|Move to): /.test(l));
  if (headers.length !== 1) return null;
  const body = lines.slice(lines.indexOf(headers[0]!) + 1).filter((l) => !l.startsWith('*** '));
  if (headers[0]!.startsWith('*** Add File: '))
    return `${body.map((l) => (l.startsWith('+') ? l.slice(1) : l)).join('\n')}\n`;
  if (!headers[0]!.startsWith('*** Update File: ')) return null;
  const text = current.split('\n');
  let at = 0;
  // Chunks, each after an `@@` line (its optional text: a line to find first).
  const chunks: Array<{ anchor: string; lines: string[] }> = [];
  for (const line of body) {
    if (line.startsWith('@@')) chunks.push({ anchor: line.slice(2).trim(), lines: [] });
    else if (chunks.length === 0) chunks.push({ anchor: '', lines: [line] });
    else chunks.at(-1)!.lines.push(line);
  }
  for (const chunk of chunks) {
    if (chunk.anchor !== '') {
      const found = text.findIndex((l, i) => i >= at && l.trim() === chunk.anchor);
      if (found === -1) return null;
      at = found + 1;
    }
    const kept = chunk.lines.filter((l) => l !== '' || chunk.lines.length === 1);
    const before = kept.filter((l) => !l.startsWith('+')).map((l) => l.slice(1));
    const after = kept.filter((l) => !l.startsWith('-')).map((l) => l.slice(1));
    if (before.length === 0) {
      text.splice(at, 0, ...after);
      at += after.length;
      continue;
    }
    const start = findRun(text, before, at);
    if (start === -1) return null;
    text.splice(start, before.length, ...after);
    at = start + after.length;
  }
  return text.join('\n');
}

/** Where `run` appears in `lines` from `from` on (exactly, else ignoring trailing spaces), or -1. */
function findRun(lines: string[], run: string[], from: number): number {
  for (const same of [
    (a: string, b: string) => a === b,
    (a: string, b: string) => a.trimEnd() === b.trimEnd(),
  ])
    for (let i = from; i + run.length <= lines.length; i++)
      if (run.every((r, k) => same(lines[i + k]!, r))) return i;
  return -1;
}
