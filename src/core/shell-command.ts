import { posix } from 'node:path';
import { REDIRECT, split } from './shell-words.js';

/**
 * What a shell command line would delete, move, overwrite or throw away, so that a hook can check
 * those files before the command runs. A best-effort reading of common commands, not a shell: it
 * splits `a && b; c | d` and subshells, follows `cd`, honours quotes and escapes, reads output
 * redirections, and skips `sudo`, `env`, `VAR=x` and the like. Where a command writes files it
 * cannot name (a formatter over a folder, `find … -delete`, a path built from a variable), the
 * folder it names stands for them (`dir/**`).
 */

const PREFIXES = new Set(['sudo', 'command', 'env', 'nohup', 'time', 'nice', 'exec', 'builtin', 'doas']);

export type FileEffect =
  /**
   * These paths (relative to the line's folder, or absolute; may be globs) are deleted, moved or
   * overwritten.
   */
  | { kind: 'paths'; command: string; paths: string[] }
  /** Uncommitted changes are discarded: tracked changes, untracked files, or both. */
  | { kind: 'changes'; command: string; which: 'tracked' | 'untracked'; paths: string[] }
  /**
   * A patch is applied: the files it names, read from `file` (relative to the line's folder, or
   * absolute), less `strip` leading folders, relative to `dir` (`git apply`: to the worktree's
   * root, `dir` null); with no file (it comes on stdin), everything under that folder.
   */
  | { kind: 'patch'; command: string; file: string | null; strip: number; dir: string | null };

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

/** A path a command names, as what it may write: one built from a variable stands for its folder. */
function resolvable(path: string): string[] {
  const dynamic = path.search(/[$`]/);
  if (dynamic === -1) return [path];
  const folder = path.slice(0, path.lastIndexOf('/', dynamic) + 1);
  return [`${folder}**`];
}

/** A path that may be a folder: itself and everything under it. */
function folderOrFile(path: string): string[] {
  if (path === '.' || path === './') return ['**'];
  const bare = path.replace(/\/+$/, '');
  return path.endsWith('/') ? [`${bare}/**`] : [bare, `${bare}/**`];
}

/** `sed -i`, `perl -i`: the files edited in place (none when not in place). */
function inPlaceEdits(base: string, args: string[]): string[] | null {
  let inPlace = false;
  let script = false;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      files.push(...args.slice(i + 1));
      break;
    }
    if (a === '--in-place' || a.startsWith('--in-place=')) inPlace = true;
    else if (a === '-e' || a === '-f' || a === '-E' || a === '--expression' || a === '--file') {
      if (base === 'perl' || a !== '-E') {
        script = true;
        i++;
      }
    } else if (a.startsWith('--expression=') || a.startsWith('--file=')) script = true;
    else if (/^-[A-Za-z0-9]+/.test(a) && !a.startsWith('--')) {
      const flags = a.slice(1);
      const at = flags.indexOf('i');
      if (at !== -1) {
        inPlace = true;
        // BSD sed: `-i ''` (an empty suffix of its own).
        if (base === 'sed' && flags === 'i' && args[i + 1] === '') i++;
      }
      // `perl -pe 'script'`: the last flag of a cluster may take the next word.
      const before = at === -1 ? flags : flags.slice(0, at);
      if (/[eE]$/.test(before) || (at === -1 && /e$/.test(flags))) {
        script = true;
        i++;
      }
    } else if (a.startsWith('-')) {
      // another long option
    } else if (!script) script = true;
    else files.push(a);
  }
  return inPlace ? files : null;
}

/** Formatters and fixers that rewrite the files they are given (all under the folder when none). */
function formatterWrites(base: string, args: string[]): string[] | null {
  const has = (...flags: string[]) =>
    args.some((a) => flags.includes(a) || flags.some((f) => a.startsWith(`${f}=`)));
  const writes =
    (base === 'prettier' && has('--write', '-w')) ||
    (base === 'eslint' && has('--fix')) ||
    (base === 'stylelint' && has('--fix')) ||
    (base === 'standard' && has('--fix')) ||
    (base === 'biome' && (has('--write', '--apply', '--fix') || (args[0] === 'format' && has('--write')))) ||
    (base === 'black' && !has('--check', '--diff')) ||
    (base === 'isort' && !has('--check', '--check-only', '--diff', '-c')) ||
    (base === 'ruff' && ((args[0] === 'format' && !has('--check', '--diff')) || has('--fix'))) ||
    ((base === 'gofmt' || base === 'goimports') && has('-w')) ||
    (base === 'clang-format' && has('-i')) ||
    base === 'rustfmt' ||
    (base === 'cargo' && args[0] === 'fmt' && !has('--check'));
  if (!writes) return null;
  const subcommands = new Set(['format', 'check', 'lint', 'fmt']);
  const ops = operands(args).filter((o, i) => !(i === 0 && subcommands.has(o)));
  return ops.length === 0 ? ['**'] : ops.flatMap((o) => (/[*?[]/.test(o) ? [o] : folderOrFile(o)));
}

/** The command a package runner runs: `npx prettier …` is `prettier …`. */
function unwrapRunner(words: string[]): string[] {
  const [name, ...rest] = words;
  const base = name?.split('/').pop();
  const skipOptions = (list: string[]) => {
    let i = 0;
    while (i < list.length && list[i]!.startsWith('-'))
      i += list[i] === '-p' || list[i] === '--package' ? 2 : 1;
    return list.slice(i);
  };
  if (base === 'npx' || base === 'bunx') return skipOptions(rest);
  if ((base === 'pnpm' || base === 'npm') && (rest[0] === 'exec' || rest[0] === 'dlx' || rest[0] === 'x'))
    return skipOptions(rest.slice(1)).filter((w, i) => !(i === 0 && w === '--'));
  if (base === 'yarn' && rest[0] === 'dlx') return skipOptions(rest.slice(1));
  if (
    base === 'yarn' &&
    rest.length > 0 &&
    !rest[0]!.startsWith('-') &&
    !['add', 'install', 'remove', 'run'].includes(rest[0]!)
  )
    return rest;
  return words;
}

/** What one simple command (its prefixes, runner and redirections taken off) writes. */
function commandEffect(base: string, args: string[], command: string, dir: string): FileEffect | null {
  const paths = (list: string[]): FileEffect => ({ kind: 'paths', command, paths: list });
  switch (base) {
    case 'rm':
    case 'unlink':
    case 'rmdir':
    case 'shred':
      return paths(operands(args));
    case 'mv':
      return paths(operands(args, new Set(['-t', '--target-directory', '-S', '--suffix'])));
    case 'cp':
    case 'install': {
      const valued = new Set(['-t', '--target-directory', '-S', '--suffix', '-m', '--mode', '-o', '-g']);
      const ops = operands(args, valued);
      const target = args.indexOf('-t') !== -1 ? args[args.indexOf('-t') + 1] : undefined;
      const into = target ?? ops.pop();
      if (!into) return null;
      // Over a file, or into a folder (then each source's name there).
      return paths([
        ...(into.endsWith('/') || target ? [] : [into]),
        ...ops.map((src) => posix.join(into, posix.basename(src))),
      ]);
    }
    case 'truncate':
      return paths(operands(args, new Set(['-s', '--size', '-r', '--reference'])));
    case 'tee':
      return paths(operands(args));
    case 'dd': {
      const of = args.find((a) => a.startsWith('of='));
      return of ? paths([of.slice(3)]) : null;
    }
    case 'sed':
    case 'perl': {
      const files = inPlaceEdits(base, args);
      return files ? paths(files) : null;
    }
    case 'find': {
      const writes = args.some(
        (a, i) =>
          a === '-delete' ||
          ((a === '-exec' || a === '-execdir' || a === '-ok') &&
            ['rm', 'mv', 'sed', 'perl', 'truncate', 'shred', 'unlink'].includes(
              args[i + 1]?.split('/').pop() ?? '',
            )),
      );
      if (!writes) return null;
      const starts = [];
      for (const a of args) {
        if (a.startsWith('-') || a === '(' || a === '!') break;
        starts.push(a);
      }
      return paths((starts.length > 0 ? starts : ['.']).flatMap(folderOrFile));
    }
    case 'patch': {
      if (args.includes('--dry-run') || args.includes('-C') || args.includes('--check')) return null;
      const strip = stripOf(args, 0);
      const fromOption = args.indexOf('-i') !== -1 ? args[args.indexOf('-i') + 1] : undefined;
      const ops = operands(args, new Set(['-i', '--input', '-d', '--directory', '-o', '--output', '-p']));
      // `patch file.c < fix.diff`: the file to patch is named.
      if (ops.length > 0 && !fromOption) return paths([ops[0]!]);
      return { kind: 'patch', command, file: fromOption ?? null, strip, dir };
    }
    default: {
      const written = formatterWrites(base, args);
      return written ? paths(written) : null;
    }
  }
}

/**
 * The file effects of every simple command in a command line that deletes, moves, overwrites or
 * discards. Paths are relative to the folder the line starts in (`cd` is followed, within its
 * subshell), or absolute.
 */
export function fileEffects(line: string): FileEffect[] {
  const out: FileEffect[] = [];
  // The folder each subshell depth is in, relative to the line's (null: not known).
  const dirs: Array<string | null> = [''];
  for (const { words: raw, depth } of split(line)) {
    dirs.length = Math.min(dirs.length, depth + 1);
    while (dirs.length < depth + 1) dirs.push(dirs[dirs.length - 1]!);
    const dir = dirs[depth]!;
    // Output redirections write their targets; input ones feed a patch.
    const words: string[] = [];
    const written: string[] = [];
    let input: string | null = null;
    for (let i = 0; i < raw.length; i++) {
      const w = raw[i]!;
      if (!w.startsWith(REDIRECT)) {
        words.push(w);
        continue;
      }
      const target = raw[i + 1];
      i++;
      if (target === undefined || target.startsWith('&') || target.startsWith(REDIRECT)) continue;
      if (w === `${REDIRECT}<`) input = target;
      else if (w === `${REDIRECT}>` || w === `${REDIRECT}>>`) {
        if (!/^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/.test(target)) written.push(target);
      }
    }
    const inDir = (p: string) => (posix.isAbsolute(p) || dir === '' ? p : posix.join(dir, p));
    const unwrapped = unwrapRunner(stripPrefixes(words));
    const [name, ...args] = unwrapped;
    const command = raw.filter((w) => !w.startsWith(REDIRECT)).join(' ');
    if (name === 'cd' || name === 'pushd') {
      const to = args.find((a) => !a.startsWith('-'));
      dirs[depth] =
        to === undefined || to === '~' || to.startsWith('~/') || to === '-' || /[$`]/.test(to) || dir === null
          ? to !== undefined && posix.isAbsolute(to)
            ? posix.normalize(to)
            : null
          : posix.isAbsolute(to)
            ? posix.normalize(to)
            : posix.join(dir, to);
      continue;
    }
    // In a folder this cannot follow (`cd $X`), what it writes is not known here.
    if (dir === null) continue;
    if (written.length > 0)
      out.push({
        kind: 'paths',
        command: command || 'redirection',
        paths: written.flatMap(resolvable).map(inDir),
      });
    if (!name) continue;
    const base = name.split('/').pop()!;
    let effect = base === 'git' ? gitEffect(args, command) : commandEffect(base, args, command, dir);
    if (base === 'git' && !effect) effect = gitPatch(args, command);
    if (effect?.kind === 'patch' && effect.file === null && input) effect = { ...effect, file: input };
    if (effect?.kind === 'patch' && effect.file) effect = { ...effect, file: inDir(effect.file) };
    if (effect?.kind === 'paths') effect = { ...effect, paths: effect.paths.flatMap(resolvable).map(inDir) };
    if (effect && (effect.kind !== 'paths' || effect.paths.length > 0)) out.push(effect);
  }
  return out;
}

/** The leading folders a patch command strips from the names in the patch (`-p<n>`). */
function stripOf(args: string[], otherwise: number): number {
  const option = args.find((a) => /^-p\d+$/.test(a));
  return option ? Number(option.slice(2)) : otherwise;
}

/** `git apply` / `git am`: a patch applied to the worktree. */
function gitPatch(args: string[], command: string): FileEffect | null {
  const sub = args.find((a) => !a.startsWith('-'));
  if (sub !== 'apply' && sub !== 'am') return null;
  const rest = args.slice(args.indexOf(sub) + 1);
  if (
    sub === 'apply' &&
    rest.some((a) => ['--check', '--stat', '--numstat', '--summary', '--cached'].includes(a)) &&
    !rest.includes('--apply')
  )
    return null;
  const strip = stripOf(rest, 1);
  const file = operands(rest, new Set(['--directory', '--exclude', '--include', '-C'])).find(
    (o) => o !== '-',
  );
  return { kind: 'patch', command, file: file ?? null, strip, dir: null };
}
