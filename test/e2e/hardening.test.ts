/**
 * Requests that used to hold the shared database or break a hook, sent as a hostile or careless
 * client would, over real processes: each is answered (decided or refused with the limit named)
 * while other sessions' claims and hooks go on answering correctly.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { childSqlite, openSqlite } from '../helpers/sqlite.js';
import { bareServe, connectStdio, hookClient } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

type Closable = { close: () => Promise<unknown> };
const open: Closable[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function setup() {
  const home = tempDir('collab-home-');
  const repo = gitRepo({ 'src/api/auth.py': 'x\n', '..env': 'SECRET=1\n' });
  const a = await connectStdio({ cwd: repo, home });
  const b = await connectStdio({ cwd: repo, home });
  const hooks = await hookClient({ cwd: repo, home });
  open.push(a, b, hooks);
  await a.call('collab_claim', { files: ['src/api/auth.py', '..env'], intent: 'held by A', exclusive: true });
  return { home, repo, a, b, hooks };
}

const parse = (stdout: string) => (stdout.trim() === '' ? null : JSON.parse(stdout));

describe('no request holds the database or breaks protection', () => {
  it('long `**/` chains are decided, deep and huge paths refused naming the limit, while others are answered', async () => {
    const { repo, a, b, hooks } = await setup();
    await a.call('collab_claim', { files: [`${'**/'.repeat(80)}x`], intent: 'chain' });
    const racing = [
      b.call<{ conflicts: unknown[]; files: string[] }>('collab_claim', {
        files: [`${'**/'.repeat(80)}y`],
        intent: 'chain',
      }),
      b.fail('collab_claim', {
        files: Array.from({ length: 8 }, (_, i) => `${'d/'.repeat(200)}${i}`),
        intent: 'deep',
      }),
      b.fail('collab_claims_list', { path_filter: 'p/'.repeat(500_000) }),
      b.fail('collab_claim', { files: [`${'{a,b}/'.repeat(8)}x`], intent: 'braces' }),
      b.fail('collab_claim', { files: ['**/a/**/b/**/c/**/d/**/e'], intent: 'globstars' }),
      hooks.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'H-1')),
      b.fail('collab_claim', { files: ['src/api/auth.py'], intent: 'mine', exclusive: true }),
    ] as const;
    const [chain, deep, filter, braces, globstars, hook, exclusive] = await Promise.all(racing);
    expect(chain.files).toEqual(['**/y']);
    expect(chain.conflicts).toEqual([]);
    expect(deep).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('segments (at most 128, limits.path_segments)'),
    });
    expect(filter).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('at most 4096, limits.path_input_chars'),
    });
    expect(braces).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('more than 64 alternatives'),
    });
    expect(globstars).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('(at most 4, limits.globstars)'),
    });
    expect(parse(hook.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(exclusive.code).toBe('CLAIM_CONFLICT');
  });

  it('a 1 MB shell command gets a complete, short answer that puts it to the user', async () => {
    const { repo, hooks } = await setup();
    const command = `rm ${Array.from({ length: 70_000 }, (_, i) => `f${i}.txt`).join(' ')} src/api/auth.py`;
    expect(command.length).toBeGreaterThan(500_000);
    const out = await hooks.hook(
      'pre-tool-use',
      hookFixture('claude-code/pre-tool-use-bash', repo, 'H-1', { command }),
    );
    const answer = parse(out.stdout);
    expect(answer.hookSpecificOutput.permissionDecision).toBe('ask');
    expect(answer.hookSpecificOutput.permissionDecisionReason).toContain('was not checked');
    expect(out.stdout.length).toBeLessThan(1_000);
    // A command of ordinary length naming the held file is denied, and named, not echoed whole.
    const short = `rm -f src/api/auth.py ${'x'.repeat(5_000)}`;
    const denied = parse(
      (
        await hooks.hook(
          'pre-tool-use',
          hookFixture('claude-code/pre-tool-use-bash', repo, 'H-1', { command: short }),
        )
      ).stdout,
    );
    expect(denied.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(denied.hookSpecificOutput.permissionDecisionReason.length).toBeLessThan(1_500);
  });

  it('`..env` is a file of the project; a file reached through a symlinked folder is the same file', async () => {
    const { repo, hooks } = await setup();
    const dotdot = parse(
      (
        await hooks.hook(
          'pre-tool-use',
          hookFixture('claude-code/pre-tool-use-edit', repo, 'H-1', {
            file_path: join(repo, '..env'),
            old_string: 'a',
            new_string: 'b',
          }),
        )
      ).stdout,
    );
    expect(dotdot.hookSpecificOutput.permissionDecision).toBe('deny');
    const link = join(tempDir('collab-link-'), 'repo-link');
    (await import('node:fs')).symlinkSync(repo, link);
    const viaLink = parse(
      (
        await hooks.hook(
          'pre-tool-use',
          hookFixture('claude-code/pre-tool-use-edit', repo, 'H-1', {
            file_path: join(link, 'src/api/auth.py'),
            old_string: 'a',
            new_string: 'b',
          }),
        )
      ).stdout,
    );
    expect(viaLink.hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('a damaged code cache is thrown away and rebuilt; the hook still decides', async () => {
    const { home, repo, hooks } = await setup();
    const edit = () => hooks.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'H-1'));
    await edit(); // writes the caches of the bundles it ran (the hook's first step; the whole hook)
    const dir = join(home, 'cache');
    const files = readdirSync(dir).filter((f) => f.endsWith('.v8cache'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const bytes = readFileSync(join(dir, file));
      for (let i = 64; i < bytes.length; i += 97) bytes[i] = bytes[i]! ^ 0xff;
      writeFileSync(join(dir, file), bytes);
    }
    const out = await edit();
    expect(out.code).toBe(0);
    expect(parse(out.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    // A marker left as if a process had crashed while loading it: the cache is not trusted again.
    for (const file of files) writeFileSync(join(dir, `${file}.loading-999999`), '');
    expect(parse((await edit()).stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(readdirSync(dir).filter((f) => f.includes('.loading-'))).toEqual([]);
  });
});

describe('a database held by another process', () => {
  it('is waited for, then answered with DB_BUSY naming the process and what to do; nothing is lost', async () => {
    const home = tempDir('collab-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ lock_wait_seconds: 1 }));
    const repo = gitRepo({ 'src/a.ts': 'x\n' });
    const a = await connectStdio({ cwd: repo, home });
    open.push(a);
    await a.call('collab_claim', { files: ['src/a.ts'], intent: 'before the stop' });
    // Another process takes the write lock and is stopped (Ctrl-Z in a terminal) while holding it.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `${childSqlite()}
         const db = openDb(${JSON.stringify(join(home, 'registry.db'))});
         db.prepare('BEGIN IMMEDIATE').run();
         process.stdout.write('locked\\n', () => process.kill(process.pid, 'SIGSTOP'));`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise((done) => holder.stdout!.once('data', done));
      const refused = await a.client.callTool({
        name: 'collab_claim',
        arguments: { files: ['src/b.ts'], intent: 'while it is stopped' },
      });
      expect(refused.isError).toBe(true);
      const error = (refused.structuredContent as { error: { code: string; message: string; hint: string } })
        .error;
      expect(error.code).toBe('DB_BUSY');
      expect(error.message).toContain(`pid ${holder.pid}`);
      expect(error.message).toContain('is stopped');
      expect(error.hint).toContain(`kill -CONT ${holder.pid}`);
    } finally {
      holder.kill('SIGKILL');
      await new Promise((done) => holder.once('exit', done));
    }
    // Its lock went with it: the same call now goes through, and the earlier claim is intact.
    await a.call('collab_claim', { files: ['src/b.ts'], intent: 'after' });
    const list = await a.call<{ claims: Array<{ files: string[] }> }>('collab_claims_list');
    expect(list.claims.flatMap((c) => c.files).sort()).toEqual(['src/a.ts', 'src/b.ts']);
  });
});

describe('a request over the transport’s limit', () => {
  it('closes the connection and ends its session (nothing is left active)', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const server = bareServe(repo, home);
    await server.call('collab_session_list');
    await server.call('collab_message_send', { content: 'x'.repeat(11_000_000) });
    // Not an end the client asked for: said by the exit code too.
    expect(await server.exit).toBe(1);
    expect(server.output().err).toContain('the connection ends');
    const db = openSqlite(join(home, 'registry.db'), { readonly: true });
    expect(db.prepare('SELECT status FROM sessions').all()).toEqual([{ status: 'ended' }]);
    db.close();
  });
});

describe('lines that are no JSON-RPC message', () => {
  it.each([
    ['through the machine’s server', []],
    ['served in its own process', ['--in-process']],
  ])('are answered as JSON-RPC asks (%s), and the next line is served', async (_, args) => {
    const home = tempDir('collab-home-');
    const server = bareServe(gitRepo(), home, [process.execPath], { args });
    open.push({ close: async () => server.child.kill() });
    await server.call('collab_session_list');
    server.raw('not json\n');
    server.raw('[{"jsonrpc":"2.0","id":90,"method":"ping"}]\n');
    server.raw('{"jsonrpc":"2.0","id":91,"method":7}\n');
    server.raw('{"jsonrpc":"2.0","id":92}\n');
    const after = await server.request('ping', {});
    expect(after).toMatchObject({ result: {} });
    const answers = server
      .output()
      .out.split('\n')
      .filter((l) => l.includes('"error"'))
      .map((l) => JSON.parse(l) as { id: unknown; error: { code: number; message: string } });
    expect(answers.map((a) => [a.id, a.error.code])).toEqual([
      [null, -32700],
      [null, -32600],
      [91, -32600],
      [null, -32600],
    ]);
    expect(answers[1]!.error.message).toMatch(/batch/);
    expect(answers[2]!.error.message).toMatch(/"method" must be a string/);
  });
});
