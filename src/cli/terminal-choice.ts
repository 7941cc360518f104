/**
 * Choosing from a list and typing an answer in a terminal: arrow keys and Enter, or the item's
 * number; Esc or q leaves. Reads the keys of a TTY in raw mode and restores it afterwards.
 */
import { emitKeypressEvents } from 'node:readline';
import { bold, dim } from './format.js';

interface Key {
  name?: string;
  ctrl?: boolean;
  sequence?: string;
}

/** The index chosen, or null when the person left (Esc, q, Ctrl-C). */
export function choose(title: string, items: string[]): Promise<number | null> {
  const input = process.stdin;
  const out = process.stdout;
  return new Promise((resolve) => {
    let at = 0;
    let typed = '';
    let drawn = 0;
    const draw = () => {
      if (drawn > 0) out.write(`\x1b[${drawn}A\x1b[J`);
      const lines = [
        bold(title),
        ...items.map((item, i) => `${i === at ? '›' : ' '} ${String(i + 1).padStart(2)}. ${item}`),
        dim(`↑/↓ or a number, Enter to choose, Esc to leave${typed ? `   number: ${typed}` : ''}`),
      ];
      out.write(`${lines.join('\n')}\n`);
      drawn = lines.length;
    };
    const finish = (value: number | null) => {
      input.off('keypress', onKey);
      if (input.isTTY) input.setRawMode(false);
      input.pause();
      resolve(value);
    };
    const onKey = (_: string, key: Key = {}) => {
      if ((key.ctrl && key.name === 'c') || key.name === 'escape' || key.name === 'q') return finish(null);
      if (key.name === 'up') at = (at + items.length - 1) % items.length;
      else if (key.name === 'down') at = (at + 1) % items.length;
      else if (key.name === 'return' || key.name === 'enter') {
        if (typed) {
          const n = Number(typed);
          typed = '';
          if (n >= 1 && n <= items.length) return finish(n - 1);
        } else return finish(at);
      } else if (key.name === 'backspace') typed = typed.slice(0, -1);
      else if (key.sequence && /^[0-9]$/.test(key.sequence)) {
        typed += key.sequence;
        const n = Number(typed);
        // A number no longer one could start (or the only one it can be) is taken at once.
        if (n >= 1 && n <= items.length && n * 10 > items.length) return finish(n - 1);
        if (n >= 1 && n <= items.length) at = n - 1;
      }
      draw();
    };
    emitKeypressEvents(input);
    if (input.isTTY) input.setRawMode(true);
    input.on('keypress', onKey);
    input.resume();
    draw();
  });
}

/** A line of text typed by the person, or null when they left (Esc, Ctrl-C, Ctrl-D on an empty line). */
export function typeLine(prompt: string): Promise<string | null> {
  const input = process.stdin;
  const out = process.stdout;
  return new Promise((resolve) => {
    let text = '';
    const finish = (value: string | null) => {
      input.off('keypress', onKey);
      if (input.isTTY) input.setRawMode(false);
      input.pause();
      out.write('\n');
      resolve(value);
    };
    const onKey = (chunk: string, key: Key = {}) => {
      if ((key.ctrl && key.name === 'c') || key.name === 'escape') return finish(null);
      if (key.ctrl && key.name === 'd' && text === '') return finish(null);
      if (key.name === 'return' || key.name === 'enter') return finish(text);
      if (key.name === 'backspace') {
        if (text.length > 0) {
          text = text.slice(0, -1);
          out.write('\b \b');
        }
        return;
      }
      if (chunk && !key.ctrl && !/[\x00-\x1f\x7f]/.test(chunk)) {
        text += chunk;
        out.write(chunk);
      }
    };
    emitKeypressEvents(input);
    if (input.isTTY) input.setRawMode(true);
    input.on('keypress', onKey);
    input.resume();
    out.write(prompt);
  });
}
