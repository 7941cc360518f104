import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGitConfig, remotesOf } from '../../src/integrations/git-config.js';
import { tempDir } from '../helpers/temp.js';

/** By key, each key's values in file order (how `parseGitConfig` keeps them). */
const byKey = (entries: string[]) =>
  [...entries].sort((a, b) => a.split('=')[0]!.localeCompare(b.split('=')[0]!));

/** What git itself reads from a config file: `git config --file <f> --list`, key=value per entry. */
function gitList(text: string): string[] {
  const file = join(tempDir('collab-gitconfig-'), 'config');
  writeFileSync(file, text);
  return byKey(
    execFileSync('git', ['config', '--file', file, '--list', '-z'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .split('\0')
      .filter(Boolean)
      .map((entry) => (entry.includes('\n') ? entry.replace('\n', '=') : `${entry}=true`)),
  );
}

function ours(text: string): string[] {
  const out: string[] = [];
  for (const [key, values] of parseGitConfig(text)) for (const v of values) out.push(`${key}=${v}`);
  return byKey(out);
}

const SAMPLES = [
  '[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:acme/api.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n',
  '[remote "origin"]\n  url = "https://github.com/acme/api.git" # a comment\n',
  '[remote "up\\"stream"]\n url = a;b\n',
  '[Remote "Origin"]\n URL = x\n',
  '[remote.origin]\n url = y\n',
  '[remote "o"]\n url = "a # not a comment" ; but this is\n',
  '[remote "o"]\n url = one\\\n two\n',
  '[remote "o"]\n url = tab\\there\\nnew\n',
  '[remote "o"]\n url\n',
  '# only a comment\n; another\n[remote "a"]\nurl=first\nurl=second\n[remote "b"]\n\turl =   spaced value   \n',
  '[remote "o"]\r\n\turl = crlf\r\n',
  // Blanks count once the value has a character: an empty quote is none (found by the property below).
  '[remote "o"]\n\turl = "" a\n',
  '[remote "o"]\n\turl = a\t\tb "" c\n',
];

describe('git config read as git reads it', () => {
  it.each(SAMPLES)('same entries as `git config --list` for %j', (text) => {
    expect(ours(text)).toEqual(gitList(text));
  });

  it('remotes with their first URL, in file order', () => {
    const config = parseGitConfig(SAMPLES[9]!);
    expect(remotesOf(config)).toEqual([
      { name: 'a', url: 'first' },
      { name: 'b', url: 'spaced value' },
    ]);
  });

  it('agrees with git on generated files of remotes, quotes, comments and escapes', () => {
    const piece = fc.constantFrom('a', 'b', ' ', '"', '#', ';', '\\"', '\\\\', '\\t', 'x.y', '/', ':', '@');
    const value = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));
    const file = fc
      .array(fc.tuple(fc.constantFrom('origin', 'upstream', 'a b'), value), { minLength: 1, maxLength: 4 })
      .map((remotes) => remotes.map(([name, v]) => `[remote "${name}"]\n\turl = ${v}\n`).join(''));
    fc.assert(
      fc.property(file, (text) => {
        let expected: string[];
        try {
          expected = gitList(text);
        } catch {
          return true; // git refuses it (an unterminated quote): nothing to compare
        }
        expect(JSON.stringify(ours(text)), JSON.stringify(text)).toBe(JSON.stringify(expected));
      }),
      { numRuns: 80 },
    );
  });

  it('a huge or binary file costs a bounded read and reads nothing bad', () => {
    const big = `[remote "o"]\n url = ${'x'.repeat(3_000_000)}\n`;
    expect(() => parseGitConfig(big)).not.toThrow();
    expect(() => parseGitConfig('\0\x01[[[""\\\n=== \n')).not.toThrow();
  });
});
