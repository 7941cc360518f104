import { invalidInput } from './errors.js';
import { LINE_CONTROLS, shown } from './fence.js';
import { atMost, LIMITS } from './limits.js';

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
 * - consecutive globstar segments are one, which matches the same paths;
 * - a path that escapes the root, or is empty, or holds a control character (`LINE_CONTROLS`), or
 *   passes a limit of `LIMITS` (length, segments, globstars, wildcards), is `INVALID_INPUT` naming
 *   what.
 */
export function normalizePattern(input: string, root: string): string {
  if (input.length > LIMITS.pathInputChars)
    throw tooLarge(input, `is ${input.length} characters long (${atMost('pathInputChars')})`);
  const raw = input.trim().replace(/\\/g, '/');
  if (raw.length === 0)
    throw invalidInput(
      'A file path or pattern is empty.',
      'Give paths relative to the project root, e.g. "src/app.ts" or "src/api/*".',
    );
  const control = LINE_CONTROLS.exec(raw);
  if (control)
    throw invalidInput(
      `Path ${shown(input)} contains a control or bidirectional character (U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}).`,
      'Such a name reads as something else where it is shown: rename the file, or claim the folder it is in.',
    );
  let rel = raw;
  if (isAbsolute(raw)) {
    const base = root.replace(/\\/g, '/').replace(/\/+$/, '');
    if (raw !== base && !raw.startsWith(`${base}/`)) {
      throw invalidInput(
        `Path ${shown(input)} is outside the project root ${root}.`,
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
        throw invalidInput(
          `Path ${shown(input)} escapes the project root.`,
          'Give a path inside the project.',
        );
      }
      out.pop();
      continue;
    }
    if (segment === '**' && out[out.length - 1] === '**') continue;
    out.push(segment);
  }
  if (out.length === 0) {
    // The root itself: the whole project.
    return '**';
  }
  if (directory && out[out.length - 1] !== '**') out.push('**');
  const pattern = out.join('/');
  checkLimits(input, pattern, out);
  return pattern;
}

function tooLarge(input: string, what: string): Error {
  return invalidInput(
    `Path ${shown(input)} ${what}.`,
    'Claim a shorter path, or a directory above it (a directory claims everything below).',
  );
}

/** A normalised pattern within the limits that keep matching and overlap cheap. */
function checkLimits(input: string, pattern: string, segments: string[]): void {
  if (segments.length > LIMITS.pathSegments)
    throw tooLarge(input, `has ${segments.length} segments (${atMost('pathSegments')})`);
  if (pattern.length > LIMITS.pathChars)
    throw tooLarge(input, `is ${pattern.length} characters long once normalised (${atMost('pathChars')})`);
  if (!isGlob(pattern)) return;
  const globstars = segments.filter((s) => s === '**').length;
  if (globstars > LIMITS.globstars)
    throw tooLarge(input, `has ${globstars} \`**\` segments (${atMost('globstars')})`);
  const wildcards =
    segments
      .filter((s) => s !== '**')
      .join('/')
      .match(/[*?[]/g)?.length ?? 0;
  if (wildcards > LIMITS.wildcards)
    throw tooLarge(input, `has ${wildcards} wildcards (\`*\`, \`?\`, \`[\`; ${atMost('wildcards')})`);
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
