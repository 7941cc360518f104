import { userInfo } from 'node:os';

/** Small helpers for terminal output: colour only on a TTY that wants it. */
const useColour = process.stdout.isTTY && !process.env.NO_COLOR;

const wrap = (code: string) => (s: string) => (useColour ? `\x1b[${code}m${s}\x1b[0m` : s);
export const bold = wrap('1');
export const dim = wrap('2');
export const red = wrap('31');
export const green = wrap('32');
export const yellow = wrap('33');

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Who acts from this terminal, as what they do records it. */
export function terminalUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'terminal';
  }
}
