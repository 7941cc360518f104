/**
 * What a shell command line would delete, move or throw away, so that a hook can check those files
 * before the command runs. A best-effort reading of common commands, not a shell: it splits
 * `a && b; c | d`, honours quotes and escapes, and skips `sudo`, `env`, `VAR=x` and the like.
 */

export type FileEffect =
  /** These paths (relative to the command's folder; may be globs) are deleted, moved or overwritten. */
  | { kind: 'paths'; command: string; paths: string[] }
  /** Uncommitted changes are discarded: tracked changes, untracked files, or both. */
  | { kind: 'changes'; command: string; which: 'tracked' | 'untracked'; paths: string[] };

const SEPARATORS = new Set([';', '&&', '||', '|', '&', '\n']);
const PREFIXES = new Set(['sudo', 'command', 'env', 'nohup', 'time', 'nice', 'exec', 'builtin', 'doas']);

/** Splits a command line into simple commands, each a list of words. */
export function splitCommands(line: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
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
    } else if (c === '#' && !inWord) {
      const nl = line.indexOf('\n', i);
      if (nl === -1) break;
      i = nl - 1;
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else if (SEPARATORS.has(c) || (c === '|' && line[i + 1] === '|')) {
      if ((c === '&' || c === '|') && line[i + 1] === c) i++;
      endCommand();
    } else if (c === '(' || c === ')' || c === '{' || c === '}') {
      if (inWord || (c !== '(' && c !== ')' && line[i + 1] !== ' ' && line[i + 1] !== undefined)) {
        word += c;
        inWord = true;
      } else endCommand();
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

function stripPrefixes(words: string[]): string[] {
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) i++;
    else if (PREFIXES.has(w)) {
      i++;
      // Options of the prefix itself (`sudo -u x`, `env -i`).
      while (i < words.length && words[i]!.startsWith('-')) i += words[i] === '-u' ? 2 : 1;
    } else break;
  }
  return words.slice(i);
}

/** Operands: words that are not options (everything after `--` is an operand). */
function operands(args: string[], optionsWithValue: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return out.concat(args.slice(i + 1));
    if (a.startsWith('-') && a !== '-') {
      if (optionsWithValue.has(a)) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

function gitEffect(args: string[], command: string): FileEffect | null {
  // Global options before the subcommand (`git -C dir …` is left alone: another folder).
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) {
    if (args[i] === '-C') return null;
    i += args[i] === '-c' ? 2 : 1;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  const dash = rest.indexOf('--');
  switch (sub) {
    case 'checkout': {
      if (dash !== -1) return { kind: 'paths', command, paths: rest.slice(dash + 1) };
      const ops = operands(rest, new Set(['-b', '-B', '--orphan']));
      if (rest.some((a) => a === '-b' || a === '-B' || a === '--orphan')) return null;
      // `git checkout .` (or a path) discards changes; `git checkout branch` switches branches.
      if (ops.includes('.')) return { kind: 'changes', command, which: 'tracked', paths: [] };
      const paths = ops.filter((o) => o.includes('/') || o.includes('.') || o.includes('*'));
      return paths.length > 0 ? { kind: 'paths', command, paths } : null;
    }
    case 'restore': {
      const worktree =
        rest.includes('--worktree') ||
        rest.includes('-W') ||
        !(rest.includes('--staged') || rest.includes('-S'));
      if (!worktree) return null;
      const ops = operands(rest, new Set(['-s', '--source']));
      if (ops.length === 0 || ops.includes('.'))
        return { kind: 'changes', command, which: 'tracked', paths: [] };
      return { kind: 'paths', command, paths: ops };
    }
    case 'reset':
      return rest.includes('--hard') || rest.includes('--merge') || rest.includes('--keep')
        ? { kind: 'changes', command, which: 'tracked', paths: [] }
        : null;
    case 'clean': {
      if (rest.some((a) => a === '-n' || a === '--dry-run' || (/^-[a-zA-Z]+$/.test(a) && a.includes('n'))))
        return null;
      const ops = operands(rest, new Set(['-e', '--exclude']));
      return { kind: 'changes', command, which: 'untracked', paths: ops.filter((o) => o !== '.') };
    }
    case 'stash': {
      const action = rest[0];
      if (action === undefined || action === 'push' || action === 'save' || action.startsWith('-')) {
        if (rest.includes('--staged') || rest.includes('-S')) return null;
        const ops = dash !== -1 ? rest.slice(dash + 1) : [];
        return { kind: 'changes', command, which: 'tracked', paths: ops };
      }
      return null;
    }
    case 'rm':
    case 'mv':
      return { kind: 'paths', command, paths: operands(rest) };
    default:
      return null;
  }
}

/** The file effects of every simple command in a command line that deletes, moves or discards. */
export function fileEffects(line: string): FileEffect[] {
  const out: FileEffect[] = [];
  for (const raw of splitCommands(line)) {
    const words = stripPrefixes(raw);
    const [name, ...args] = words;
    if (!name) continue;
    const command = words.join(' ');
    const base = name.split('/').pop();
    let effect: FileEffect | null = null;
    if (base === 'rm' || base === 'unlink' || base === 'rmdir' || base === 'shred') {
      effect = { kind: 'paths', command, paths: operands(args) };
    } else if (base === 'mv') {
      effect = {
        kind: 'paths',
        command,
        paths: operands(args, new Set(['-t', '--target-directory', '-S', '--suffix'])),
      };
    } else if (base === 'git') {
      effect = gitEffect(args, command);
    }
    if (effect && (effect.kind === 'changes' || effect.paths.length > 0)) out.push(effect);
  }
  return out;
}

/** Quotes a word for a POSIX shell (as is when it needs no quoting). */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
