/**
 * The dashboard's HTML templates: Hono's `html` helper, whose interpolations are escaped (`&`, `<`,
 * `>`, `"`, `'`) unless they are HTML built by `html` or `raw` themselves. Other sessions' words
 * (names, intents, messages, questions) are always text on the page, never markup. The pages
 * interpolate no promises, so a template is HTML at once.
 */
import { raw as rawHtml, html as template } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/** HTML that is already safe: built by `html` or `raw`. */
export type Html = HtmlEscapedString;

/** A template whose interpolations are escaped, unless they are `Html` themselves. */
export function html(strings: TemplateStringsArray, ...parts: unknown[]): Html {
  const built = template(strings, ...parts);
  if (built instanceof Promise) throw new Error('a dashboard template was given a promise');
  return built;
}

/** Markup written here, not taken from any input. */
export function raw(markup: string): Html {
  return rawHtml(markup);
}
