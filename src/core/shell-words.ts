/**
 * A shell command line as words: split into simple commands (`a && b; c | d`, subshells) with
 * quotes and escapes honoured and redirections marked; and a word quoted for a shell. Not a shell:
 * what the words do is read in shell-command.ts.
 */

/** Marks an unquoted redirection in a command's words (never a word a user can type). */
export const REDIRECT = '\u0000';

const SEPARATORS = new Set([';', '&&', '||', '|', '&', '\n']);

/** A simple command: its words, and how deep in subshells (`( … )`) it runs. */
export interface Simple {
  words: string[];
  depth: number;
}

/** Splits a command line into simple commands, each a list of words. */
export function splitCommands(line: string): string[][] {
  return split(line).map((c) => c.words.filter((w) => !w.startsWith(REDIRECT)));
}

/**
 * The simple commands of a line. An unquoted redirection becomes a word of its own,
 * `REDIRECT + operator` (`>`, `>>`, `<`, `<<`), followed by its target.
 */
export function split(line: string): Simple[] {
  const commands: Simple[] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  let depth = 0;
  let start = 0;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push({ words, depth: start });
    words = [];
    start = depth;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += end === -1 ? line.slice(i + 1) : line.slice(i + 1, end);
      inWord = true;
      i = end === -1 ? line.length : end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length) j++;
        word += line[j];
      }
      inWord = true;
      i = j;
    } else if (c === '\\' && i + 1 < line.length) {
      if (line[i + 1] !== '\n') word += line[i + 1];
      inWord = true;
      i++;
    } else if ((c === '$' && line[i + 1] === '(') || c === '`') {
      // A command substitution stays one word (what it prints is not known here).
      let j = i + 1;
      if (c === '`') while (j < line.length && line[j] !== '`') j++;
      else
        for (let open = 0; j < line.length; j++) {
          if (line[j] === '(') open++;
          else if (line[j] === ')' && --open === 0) break;
        }
      word += line.slice(i, j + 1);
      inWord = true;
      i = j;
    } else if (c === '#' && !inWord) {
      const nl = line.indexOf('\n', i);
      if (nl === -1) break;
      i = nl - 1;
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else if (c === '>' || c === '<') {
      // `2>`, `&>`: the descriptor before the operator is not a word.
      if (inWord && !/^(\d+|&)$/.test(word)) endWord();
      word = '';
      inWord = false;
      let op = c;
      if (line[i + 1] === c) {
        op += c;
        i++;
      }
      if (line[i + 1] === '|' || line[i + 1] === '&') i += line[i + 1] === '|' ? 1 : 0;
      words.push(REDIRECT + op);
    } else if (SEPARATORS.has(c) || (c === '|' && line[i + 1] === '|')) {
      if ((c === '&' || c === '|') && line[i + 1] === c) i++;
      endCommand();
    } else if (c === '(' || c === ')' || c === '{' || c === '}') {
      const closes = c === ')' && depth > 0;
      if (
        !closes &&
        (inWord || (c !== '(' && c !== ')' && line[i + 1] !== ' ' && line[i + 1] !== undefined))
      ) {
        word += c;
        inWord = true;
      } else {
        endCommand();
        if (c === '(' || c === '{') depth += 1;
        else depth = Math.max(0, depth - 1);
        start = depth;
      }
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

/** Quotes a word for a POSIX shell (as is when it needs no quoting). */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
