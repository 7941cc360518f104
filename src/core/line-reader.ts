import { StringDecoder } from 'node:string_decoder';

/** A line's size in bytes is over `max` (counted only for lines that could be: UTF-8 takes 1–3 bytes a character). */
const over = (line: string, max: number) => line.length > max / 3 && Buffer.byteLength(line) > max;

/**
 * Splits a byte stream into lines (newline-delimited JSON-RPC), each handed to `onLine` without
 * its newline. A line of more than `maxBytes` bytes calls `onTooLong` and nothing more is read: the
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
  let stopped = false;
  return (chunk) => {
    if (stopped) return;
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    let at = text.indexOf('\n');
    while (at !== -1) {
      parts.push(text.slice(start, at));
      const line = parts.join('');
      parts.length = 0;
      size = 0;
      if (over(line, maxBytes)) {
        stopped = true;
        onTooLong();
        return;
      }
      onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
      start = at + 1;
      at = text.indexOf('\n', start);
    }
    if (start < text.length) {
      const rest = text.slice(start);
      parts.push(rest);
      size += Buffer.byteLength(rest);
      if (size > maxBytes) {
        stopped = true;
        onTooLong();
      }
    }
  };
}
