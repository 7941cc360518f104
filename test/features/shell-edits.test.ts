import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import type { SessionRow } from '../../src/store/sessions-store.js';
import { testApp } from '../helpers/app.js';
import { gitRepo } from '../helpers/temp.js';

/**
 * The PreToolUse check of a shell command (what the hook runs for Bash): one session holds
 * `src/app.ts`; another's commands that would write it are stopped, others go ahead. Each command
 * runs in the repository's root unless it says `in`.
 */
describe('shell commands that edit a held file', () => {
  let app: App;
  let repo: string;
  let other: SessionRow;
  beforeAll(async () => {
    app = await testApp();
    repo = gitRepo({ 'src/app.ts': 'a\n', 'src/lib/util.ts': 'u\n', 'docs/x.md': 'x\n' });
    mkdirSync(join(repo, 'patches'));
    writeFileSync(
      join(repo, 'patches', 'app.diff'),
      'diff --git a/src/app.ts b/src/app.ts\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-a\n+b\n',
    );
    writeFileSync(
      join(repo, 'patches', 'docs.diff'),
      '--- a/docs/x.md\n+++ b/docs/x.md\n@@ -1 +1 @@\n-x\n+y\n',
    );
    const holder = (await app.sessions.start({ projectRoot: repo, name: 'holder' })).session;
    await app.claims.claim({
      session: holder,
      files: ['src/app.ts'],
      intent: 'refactoring app',
      scope: 'small',
      exclusive: false,
      ttlSeconds: undefined,
    });
    other = (await app.sessions.start({ projectRoot: repo, name: 'other' })).session;
  });

  const stopped = [
    'cd src && rm app.ts',
    "sed -i 's/a/b/' src/app.ts",
    'echo x > src/app.ts',
    'cd src && echo x >> app.ts',
    'truncate -s 0 src/app.ts',
    'cp docs/x.md src/app.ts',
    'find src -name "*.ts" -delete',
    'npx prettier --write src',
    'npx prettier --write .',
    'git apply patches/app.diff',
    'patch -p1 < patches/app.diff',
    "perl -pi -e 's/a/b/' src/app.ts",
    '(cd src/lib && rm ../app.ts)',
    'rm src/$FILE',
    ['rm ../app.ts', 'src/lib'],
  ] as const;
  it.each(stopped.map((c) => (typeof c === 'string' ? [c, ''] : c)))(
    'stops `%s` %s',
    async (command, sub) => {
      const verdict = await app.enforcement.checkCommand(other, command, join(repo, sub));
      expect(verdict.reason).toContain('holder');
      expect(verdict.reason).toContain('src/app.ts');
    },
  );

  const allowed = [
    'cd docs && rm x.md',
    "sed 's/a/b/' src/app.ts",
    'echo x > docs/new.md',
    'cat src/app.ts > /dev/null',
    'npx prettier --check .',
    'npx prettier --write docs',
    'git apply patches/docs.diff',
    'git apply --check patches/app.diff',
    'find src -name "*.ts"',
    '(cd src && ls) && rm docs/x.md',
  ];
  it.each(allowed)('lets `%s` through', async (command) => {
    const verdict = await app.enforcement.checkCommand(other, command, repo);
    expect(verdict.reason).toBeNull();
  });
});
