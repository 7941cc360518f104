/**
 * The dashboard's HTML templates: Hono's `html` helper, whose interpolations are escaped (`&`, `<`,
 * `>`, `"`, `'`) unless they are HTML built by `html` or `raw` themselves. Other sessions' words
 * (names, intents, messages, questions) are always text on the page, never markup, and without
 * control characters or bidirectional overrides. The pages
 * interpolate no promises, so a template is HTML at once.
 */
import { raw as rawHtml, html as template } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { withoutControls } from '../../core/fence.js';

/** HTML that is already safe: built by `html` or `raw`. */
export type Html = HtmlEscapedString;

/** Text interpolated into a page: its controls and bidirectional overrides go (then it is escaped). */
const plain = (part: unknown): unknown =>
  typeof part === 'string' ? withoutControls(part) : Array.isArray(part) ? part.map(plain) : part;

/**
 * A template whose interpolations are escaped, unless they are `Html` themselves; text loses its
 * controls and bidirectional overrides first (one could make a page read otherwise than it says).
 */
export function html(strings: TemplateStringsArray, ...parts: unknown[]): Html {
  const built = template(strings, ...parts.map(plain));
  if (built instanceof Promise) throw new Error('a dashboard template was given a promise');
  return built;
}

/** Markup written here, not taken from any input. */
export function raw(markup: string): Html {
  return rawHtml(markup);
}
