import { StringDecoder } from 'node:string_decoder';

/**
 * Splits a byte stream into lines (newline-delimited JSON-RPC), each handed to `onLine` without
 * its newline. A line longer than `maxBytes` calls `onTooLong` and nothing more is read: the
 * pieces of a line are joined once, when it ends, so a long line costs its length, not its square.
 */
export function lineReader(
  maxBytes: number,
  onLine: (line: string) => void,
  onTooLong: () => void,
): (chunk: Buffer | string) => void {
  const decoder = new StringDecoder('utf8');
  const parts: string[] = [];
  let size = 0;
  let over = false;
  return (chunk) => {
    if (over) return;
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    let at = text.indexOf('\n');
    while (at !== -1) {
      parts.push(text.slice(start, at));
      const line = parts.join('');
      parts.length = 0;
      size = 0;
      if (line.length > maxBytes) {
        over = true;
        onTooLong();
        return;
      }
      onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
      start = at + 1;
      at = text.indexOf('\n', start);
    }
    if (start < text.length) {
      parts.push(text.slice(start));
      size += text.length - start;
      if (size > maxBytes) {
        over = true;
        onTooLong();
      }
    }
  };
}
