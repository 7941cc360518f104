/**
 * A claim of a symbol (`src/auth.ts#login`) names code that may not be there: a typo, or a function
 * about to be written. Said at once, with the symbols the file has, so a typo is not a silent claim
 * of nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitTarget } from '../../core/claim-target.js';
import { inline } from '../../core/fence.js';
import { symbolSpans } from '../../integrations/symbols.js';

/** Symbols listed, at most, beside one that is not there. */
const LISTED_SYMBOLS = 12;

/** For each symbol target whose file exists but has no such symbol, a sentence saying so. */
export function missingSymbols(worktree: string, patterns: string[]): string[] {
  const out: string[] = [];
  for (const pattern of patterns) {
    const { path, symbol } = splitTarget(pattern);
    if (symbol === null) continue;
    let text: string;
    try {
      text = readFileSync(join(worktree, path), 'utf8');
    } catch {
      continue; // a file about to be written
    }
    const spans = symbolSpans(path, text);
    if (spans === null || spans.some((s) => s.name === symbol)) continue;
    const names = spans.map((s) => s.name);
    out.push(
      `${inline(path, 200)} has no symbol ${inline(symbol, 100)} now${
        names.length > 0
          ? ` (it has ${names
              .slice(0, LISTED_SYMBOLS)
              .map((n) => inline(n, 80))
              .join(', ')}${names.length > LISTED_SYMBOLS ? ', …' : ''})`
          : ''
      }: the claim holds it as named, for code you are about to write.`,
    );
  }
  return out;
}
