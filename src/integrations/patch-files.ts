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
