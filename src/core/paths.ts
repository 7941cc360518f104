import { invalidInput } from './errors.js';

/** Characters that make a pattern a glob rather than a plain path. */
const GLOB_CHARS = /[*?[{]/;

export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

/** True for `C:\…`, `C:/…` and `/…`. */
function isAbsolute(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:\//.test(p);
}

/**
 * Normalises a path or glob given by a client to a root-relative POSIX form.
 *
 * - `\` becomes `/`; `./` segments and duplicate slashes go; `..` is resolved;
 * - an absolute path must lie inside `root` (an absolute POSIX path, no trailing slash);
 * - a trailing `/` means "the whole directory below": `src/api/` → `src/api/**`;
 * - a path that escapes the root, or is empty, is `INVALID_INPUT`.
 */
export function normalizePattern(input: string, root: string): string {
  const raw = input.trim().replace(/\\/g, '/');
  if (raw.length === 0)
    throw invalidInput(
      'A file path or pattern is empty.',
      'Give paths relative to the project root, e.g. "src/app.ts" or "src/api/*".',
    );
  if (raw.includes('\0')) throw invalidInput(`Path "${input}" contains a NUL character.`);
  let rel = raw;
  if (isAbsolute(raw)) {
    const base = root.replace(/\\/g, '/').replace(/\/+$/, '');
    if (raw !== base && !raw.startsWith(`${base}/`)) {
      throw invalidInput(
        `Path "${input}" is outside the project root ${root}.`,
        'Give a path inside the project, absolute or relative to its root.',
      );
    }
    rel = raw.slice(base.length);
  }
  const directory = rel.endsWith('/');
  const out: string[] = [];
  for (const segment of rel.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) {
        throw invalidInput(`Path "${input}" escapes the project root.`, 'Give a path inside the project.');
      }
      out.pop();
      continue;
    }
    out.push(segment);
  }
  if (out.length === 0) {
    // The root itself: the whole project.
    return '**';
  }
  if (directory && out[out.length - 1] !== '**') out.push('**');
  return out.join('/');
}

/**
 * The literal directory prefix of a normalised pattern: the leading segments that hold no glob
 * characters (for a plain path, the path itself). Used to find candidate overlaps by index.
 */
export function literalBase(pattern: string): string {
  const segments = pattern.split('/');
  const base: string[] = [];
  for (const segment of segments) {
    if (isGlob(segment)) break;
    base.push(segment);
  }
  return base.join('/');
}

/** `a/b/c` → `['', 'a', 'a/b', 'a/b/c']`: every base that could hold a pattern covering the path. */
export function ancestorBases(path: string): string[] {
  const out = [''];
  if (path === '') return out;
  const segments = path.split('/');
  for (let i = 1; i <= segments.length; i++) out.push(segments.slice(0, i).join('/'));
  return out;
}
