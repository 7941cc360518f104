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
