/**
 * The conflicts git cannot see, on either backend: two clones of one repository, one session in
 * each. One changes a function's interface (its parameters, its name, or removes it), the other's
 * uncommitted code adds a call to it in another file: git merges both, the build breaks. Both are
 * told (`level: "semantic"`), with the definition, where it is used, and the line that uses it. A
 * change of the body alone, or a call of another module's function of the same name, says nothing.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testApp, twoClonesInMemory } from '../helpers/app.js';

type Conflict = {
  session_name: string;
  level: string;
  file: string;
  symbols: string[];
  why?: string;
  semantic?: {
    symbol: string;
    defined_in: string;
    used_in: string;
    line: number;
    use: string;
    changed_by: string;
  };
};
type Check = { safe: boolean; warning?: string; predicted_conflicts: Conflict[] };

/**
 * Two clones of `files` and `src/app.ts`, a session in each; once `tick` has moved the clock, bob's
 * copy has `appTs` as its `src/app.ts` (new uses), recorded by his check.
 */
async function bobUsing(
  app: Parameters<typeof twoClonesInMemory>[0],
  files: Record<string, string>,
  appTs: string,
  tick: () => void,
) {
  const clones = await twoClonesInMemory(app, { ...files, 'src/app.ts': 'export const app = 1;\n' });
  tick();
  writeFileSync(join(clones.bobDir, 'src/app.ts'), appTs);
  await clones.bob.call('collab_check');
  return clones;
}

describe('semantic: an interface changed under another session’s new use', () => {
  it('TypeScript: new parameters, a rename, a removal; a body change or another module’s function says nothing', async () => {
    let clock = Date.now();
    const app = await testApp({ now: () => clock });
    const AUTH = 'export function login(user: string) {\n  return user;\n}\n\nexport function logout() {}\n';
    const { aliceDir, bobDir, alice, bob } = await twoClonesInMemory(app, {
      'src/auth.ts': AUTH,
      'src/app.ts': 'export const app = 1;\n',
      'src/other.ts': 'export function login() {}\n',
    });
    const later = () => {
      clock += 2_500;
    };
    later();
    // Bob's new code calls login from ./auth (his check reads it, as his edit hooks would).
    writeFileSync(
      join(bobDir, 'src/app.ts'),
      "import { login } from './auth';\nexport const app = 1;\nlogin('bob');\n",
    );
    await bob.call('collab_check');
    // Alice changes only login's body: nothing.
    writeFileSync(join(aliceDir, 'src/auth.ts'), AUTH.replace('return user;', 'return user.trim();'));
    expect((await alice.call<Check>('collab_check')).predicted_conflicts).toEqual([]);
    later();
    // Alice adds a parameter: both are told.
    writeFileSync(
      join(aliceDir, 'src/auth.ts'),
      AUTH.replace('login(user: string)', 'login(user: string, token: string)'),
    );
    const check = await alice.call<Check>('collab_check');
    expect(check.safe).toBe(false);
    expect(check.predicted_conflicts).toEqual([
      expect.objectContaining({
        session_name: 'bob',
        level: 'semantic',
        file: 'src/app.ts',
        symbols: ['login'],
        semantic: expect.objectContaining({
          defined_in: 'src/auth.ts',
          used_in: 'src/app.ts',
          line: 3,
          use: "> login('bob');",
          changed_by: 'you',
          before: '(user: string)',
          after: '(user: string, token: string)',
        }),
      }),
    ]);
    expect(check.warning).toContain('but the build breaks');
    // For status and the dashboard, said of both by name.
    const projectId = (await app.sessions.get(alice.connection.currentId!)).project_id;
    expect((await app.changes.betweenSessions(projectId, 10)).pairs).toContainEqual(
      expect.objectContaining({
        level: 'semantic',
        file: 'src/app.ts',
        lines: `"alice" changed login(user: string) to login(user: string, token: string) (src/auth.ts); "bob" uses it at src/app.ts:3: login('bob');`,
      }),
    );
    later();
    const fromBob = await bob.call<Check>('collab_check');
    expect(fromBob.predicted_conflicts).toEqual([
      expect.objectContaining({
        session_name: 'alice',
        level: 'semantic',
        semantic: expect.objectContaining({ changed_by: 'them' }),
      }),
    ]);
    later();
    // Renamed (the same body under another name), or removed: told too.
    writeFileSync(join(aliceDir, 'src/auth.ts'), AUTH.replace('function login(', 'function signIn('));
    const renamed = (await alice.call<Check>('collab_check')).predicted_conflicts;
    expect(renamed.map((c) => c.why)).toEqual([
      'you renamed login(user: string) to signIn (src/auth.ts); their uncommitted code uses it at src/app.ts:3',
    ]);
    later();
    writeFileSync(join(aliceDir, 'src/auth.ts'), 'export function logout() {}\n');
    expect(
      (await alice.call<Check>('collab_check')).predicted_conflicts.map((c) => c.semantic?.symbol),
    ).toEqual(['login']);
    later();
    // The whole module deleted: its functions are removed too.
    rmSync(join(aliceDir, 'src/auth.ts'));
    const deleted = (await alice.call<Check>('collab_check')).predicted_conflicts;
    expect(deleted.map((c) => [c.level, c.semantic?.symbol, c.semantic?.defined_in])).toEqual([
      ['semantic', 'login', 'src/auth.ts'],
    ]);
    expect(deleted[0]?.why).toBe(
      'you removed login(user: string) (src/auth.ts); their uncommitted code uses it at src/app.ts:3',
    );
    writeFileSync(join(aliceDir, 'src/auth.ts'), 'export function logout() {}\n');
    later();
    // Bob calls another module's login instead: alice's change is not his concern.
    writeFileSync(
      join(bobDir, 'src/app.ts'),
      "import { login } from './other';\nexport const app = 1;\nlogin();\n",
    );
    later();
    await bob.call('collab_check');
    expect((await alice.call<Check>('collab_check')).predicted_conflicts).toEqual([]);
  });

  it('Python: a method’s parameters changed under a call in its module, and a function imported from a package', async () => {
    let clock = Date.now();
    const app = await testApp({ now: () => clock });
    const MODELS =
      'class User:\n    def save(self):\n        pass\n\n    def load(self):\n        self.save()\n\n\ndef helper(x):\n    return x\n';
    const { aliceDir, bobDir, alice, bob } = await twoClonesInMemory(app, {
      'app/models.py': MODELS,
      'app/views.py': 'def index():\n    return 1\n',
    });
    clock += 2_500;
    writeFileSync(
      join(aliceDir, 'app/models.py'),
      MODELS.replace('def save(self):', 'def save(self, force):').replace(
        'def helper(x):',
        'def helper(x, y):',
      ),
    );
    writeFileSync(
      join(bobDir, 'app/views.py'),
      'from app.models import helper\n\n\ndef index():\n    return helper(1)\n',
    );
    writeFileSync(
      join(bobDir, 'app/models.py'),
      `${MODELS}\n\ndef extra(u):\n    u.save()\n    User().save()\n`.replace(
        '        self.save()\n',
        '        self.save()\n',
      ),
    );
    await bob.call('collab_check');
    clock += 2_500;
    const check = await alice.call<Check>('collab_check');
    const semantic = check.predicted_conflicts.filter((c) => c.level === 'semantic');
    expect(semantic.map((c) => [c.semantic!.symbol, c.semantic!.used_in, c.semantic!.line]).sort()).toEqual([
      ['User.save', 'app/models.py', 14],
      ['User.save', 'app/models.py', 15],
      ['helper', 'app/views.py', 5],
    ]);
  });

  it('a folder of modules deleted: its functions removed, read over refreshes, and the edited files still compared', async () => {
    let clock = Date.now();
    const app = await testApp({ now: () => clock });
    const modules: Record<string, string> = {};
    for (let i = 0; i < 60; i++)
      modules[`src/mods/m${String(i).padStart(2, '0')}.ts`] = `export function f${i}() {}\n`;
    const AUTH = 'export function login(user: string) {\n  return user;\n}\n';
    const { aliceDir, alice } = await bobUsing(
      app,
      { ...modules, 'src/auth.ts': AUTH },
      "import { login } from './auth';\nimport { f59 } from './mods/m59';\nexport const app = 1;\nlogin('bob');\nf59();\n",
      () => {
        clock += 2_500;
      },
    );
    // Alice deletes the 60 modules and changes login's parameters, a while before her checks: the
    // folder's times then say nothing changed since her first read (as on a busy host).
    rmSync(join(aliceDir, 'src/mods'), { recursive: true });
    writeFileSync(
      join(aliceDir, 'src/auth.ts'),
      AUTH.replace('(user: string)', '(user: string, token: string)'),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    clock += 2_500;
    const symbols = async () =>
      (await alice.call<Check>('collab_check')).predicted_conflicts
        .filter((c) => c.level === 'semantic')
        .map((c) => c.semantic!.symbol)
        .sort();
    // The first read takes 50 deleted files (m00–m49): login is compared all the same.
    expect(await symbols()).toEqual(['login']);
    // The next takes the rest: f59, which bob's new code calls, is removed.
    clock += 2_500;
    expect(await symbols()).toEqual(['f59', 'login']);
  });
  it('more edited files than a refresh parses: the rest are parsed at the next refresh, not kept unparsed', async () => {
    let clock = Date.now();
    const app = await testApp({ now: () => clock });
    const modules: Record<string, string> = {};
    const name = (i: number) => `src/mods/m${String(i).padStart(3, '0')}.ts`;
    for (let i = 0; i < 205; i++) modules[name(i)] = `export function f${i}(a: number) {\n  return a;\n}\n`;
    const { aliceDir, alice } = await bobUsing(
      app,
      modules,
      "import { f204 } from './mods/m204';\nexport const app = 1;\nf204(1);\n",
      () => {
        clock += 2_500;
      },
    );
    // Alice edits all 205 bodies, and the last function's parameters.
    for (let i = 0; i < 205; i++)
      writeFileSync(
        join(aliceDir, name(i)),
        i === 204
          ? `export function f${i}(a: number, b: number) {\n  return a + b;\n}\n`
          : `export function f${i}(a: number) {\n  return a + 1;\n}\n`,
      );
    clock += 2_500;
    const symbols = async () =>
      (await alice.call<Check>('collab_check')).predicted_conflicts
        .filter((c) => c.level === 'semantic')
        .map((c) => c.semantic!.symbol);
    // The first read parses 200 of them (m000–m199); m204 waits for the next.
    expect(await symbols()).toEqual([]);
    clock += 2_500;
    expect(await symbols()).toEqual(['f204']);
  });
});
