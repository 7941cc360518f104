import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';

// The package is CommonJS (`module.exports = serialize`); its typings describe an ES default export.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/**
 * The hash of a JSON value that does not depend on how it was written: RFC 8785 canonical JSON
 * (sorted keys, fixed number and string forms), then SHA-256, as `sha256:<hex>`. Contract schemas
 * are compared by it, so that reformatting a YAML file is not a change and any real edit is.
 */
export function canonicalHash(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('value cannot be canonicalized (undefined or a function)');
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}
