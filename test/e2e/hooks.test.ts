import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeHookClients, keepOpen, twoHookClients } from '../helpers/hook-clients.js';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { openSqlite } from '../helpers/sqlite.js';
import { connectStdio, hookClient, runCli, stopServer } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

afterEach(closeHookClients);
const setup = twoHookClients;

const parse = (stdout: string) => (stdout.trim() === '' ? null : JSON.parse(stdout));

function sessionsIn(home: string) {
  const db = openSqlite(join(home, 'registry.db'), { readonly: true });
  try {
    return db
      .prepare('SELECT id, client_session_id, status, client_pid FROM sessions ORDER BY created_at')
      .all() as Array<{
      id: string;
      client_session_id: string;
      status: string;
      client_pid: number;
    }>;
  } finally {
    db.close();
  }
}

describe('Claude Code hooks: a second session is stopped before it edits claimed files', () => {
  it('edits become claims; the other session is denied with holder, intent and how to coordinate', async () => {
    const { home, repo, a, b } = await setup();
    expect((await a.hook('session-start', hookFixture('claude-code/session-start', repo, 'A-1'))).code).toBe(
      0,
    );
    const startB = await b.hook('session-start', hookFixture('claude-code/session-start', repo, 'B-1'));
    expect(parse(startB.stdout).hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(parse(startB.stdout).hookSpecificOutput.additionalContext).toContain(
      'Other sessions working in this project',
    );

    // A edits auth.py: allowed (nobody holds it), then recorded as A's claim.
    expect(
      (await a.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'A-1'))).stdout,
    ).toBe('');
    expect(
      (await a.hook('post-tool-use', hookFixture('claude-code/post-tool-use-write', repo, 'A-1'))).code,
    ).toBe(0);

    // B tries to edit the same file: denied, with the exact decision JSON.
    const denied = await b.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'B-1'));
    expect(denied.code).toBe(0);
    const decision = parse(denied.stdout);
    expect(Object.keys(decision)).toEqual(['hookSpecificOutput']);
    expect(decision.hookSpecificOutput).toMatchObject({
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
    });
    const reason: string = decision.hookSpecificOutput.permissionDecisionReason;
    const [sessionA] = sessionsIn(home);
    expect(reason).toContain('src/api/auth.py');
    expect(reason).toContain(sessionA!.id);
    expect(reason).toContain('intent "editing"');
    expect(reason).toMatch(/since \d+s ago/);
    expect(reason).toContain('collab_message_send');
    expect(reason).toContain('ask the user');

    // A may go on editing its own file; B may edit another one.
    expect(
      (await a.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'A-1'))).stdout,
    ).toBe('');
    const other = { file_path: join(repo, 'src/ui/app.tsx'), old_string: 'x', new_string: 'y' };
    expect(
      (await b.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'B-1', other))).stdout,
    ).toBe('');

    // A's session ends: its claims go, and B may edit.
    await a.hook('session-end', hookFixture('claude-code/session-end', repo, 'A-1'));
    expect(
      (await b.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'B-1'))).stdout,
    ).toBe('');
    expect(sessionsIn(home).map((s) => [s.client_session_id, s.status])).toEqual([
      ['A-1', 'ended'],
      ['B-1', 'active'],
    ]);
  });

  it('two concurrent sessions in one folder are told apart by client (not by "last started")', async () => {
    const { home, repo, a, b } = await setup();
    // Interleaved, concurrent hook calls from both clients.
    await Promise.all([
      a.hook('session-start', hookFixture('claude-code/session-start', repo, 'A-1')),
      b.hook('session-start', hookFixture('claude-code/session-start', repo, 'B-1')),
    ]);
    const edit = (file: string) =>
      hookFixture('claude-code/post-tool-use-write', repo, '', { file_path: join(repo, file), content: '' });
    await Promise.all([
      a.hook('post-tool-use', { ...edit('src/a1.ts'), session_id: 'A-1' }),
      b.hook('post-tool-use', { ...edit('src/b1.ts'), session_id: 'B-1' }),
      a.hook('post-tool-use', { ...edit('src/a2.ts'), session_id: 'A-1' }),
      b.hook('post-tool-use', { ...edit('src/b2.ts'), session_id: 'B-1' }),
    ]);
    const sessions = sessionsIn(home);
    expect(sessions.map((s) => s.client_session_id).sort()).toEqual(['A-1', 'B-1']);
    expect(new Set(sessions.map((s) => s.client_pid))).toEqual(new Set([a.pid, b.pid]));
    const db = openSqlite(join(home, 'registry.db'), { readonly: true });
    const files = db
      .prepare(
        'SELECT s.client_session_id AS who, f.pattern FROM claim_files f JOIN claims c ON c.id = f.claim_id JOIN sessions s ON s.id = c.session_id ORDER BY f.pattern',
      )
      .all();
    db.close();
    expect(files).toEqual([
      { who: 'A-1', pattern: 'src/a1.ts' },
      { who: 'A-1', pattern: 'src/a2.ts' },
      { who: 'B-1', pattern: 'src/b1.ts' },
      { who: 'B-1', pattern: 'src/b2.ts' },
    ]);
  });

  it('an edit recorded twice (a hook whose server died after recording it records it itself) is one claim', async () => {
    const { home, repo, a } = await setup();
    await a.hook('session-start', hookFixture('claude-code/session-start', repo, 'A-1'));
    const edit = hookFixture('claude-code/post-tool-use-write', repo, 'A-1', {
      file_path: join(repo, 'src/twice.ts'),
      content: '',
    });
    const first = await a.hook('post-tool-use', edit);
    const second = await a.hook('post-tool-use', edit);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(second.stdout).toBe(first.stdout);
    const db = openSqlite(join(home, 'registry.db'), { readonly: true });
    const rows = db
      .prepare(
        "SELECT c.id, c.status FROM claim_files f JOIN claims c ON c.id = f.claim_id WHERE f.pattern = 'src/twice.ts'",
      )
      .all();
    db.close();
    expect(rows).toEqual([{ id: expect.any(String), status: 'active' }]);
  });

  it('after /clear (a new session id in the same client process) the session carries on', async () => {
    const { home, repo, a, b } = await setup();
    await a.hook('session-start', hookFixture('claude-code/session-start', repo, 'A-1'));
    await a.hook('post-tool-use', hookFixture('claude-code/post-tool-use-write', repo, 'A-1'));
    await a.hook('session-start', {
      ...hookFixture('claude-code/session-start', repo, 'A-2'),
      source: 'clear',
    });
    expect(sessionsIn(home).map((s) => s.client_session_id)).toEqual(['A-2']);
    const denied = parse(
      (await b.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'B-1'))).stdout,
    );
    expect(denied.hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('Bash commands that delete, move or discard claimed files are stopped too', async () => {
    const { repo, a, b } = await setup();
    await a.hook('post-tool-use', hookFixture('claude-code/post-tool-use-write', repo, 'A-1'));
    writeFileSync(join(repo, 'src/api/auth.py'), 'changed by A\n');
    const bash = (command: string) =>
      b.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-bash', repo, 'B-1', { command }));
    for (const command of [
      'rm src/api/auth.py',
      'mv src/api/auth.py old.py',
      'git checkout -- src/api/auth.py',
      'git restore src/api',
      'git reset --hard',
      'git stash',
      'cd . && rm -f src/api/*.py',
    ]) {
      const out = parse((await bash(command)).stdout);
      expect(out?.hookSpecificOutput?.permissionDecision, command).toBe('deny');
      expect(out.hookSpecificOutput.permissionDecisionReason).toContain('src/api/auth.py');
    }
    for (const command of [
      'ls -la',
      'rm src/ui/app.tsx',
      'git status',
      'git clean -fd',
      'git checkout main',
    ]) {
      expect((await bash(command)).stdout, command).toBe('');
    }
  });

  it('config chooses ask or warn instead of deny', async () => {
    for (const [mode, expected] of [
      ['ask', { permissionDecision: 'ask' }],
      ['warn', {}],
    ] as const) {
      const { repo, a, b } = await setup({ enforcement: mode });
      await a.hook('post-tool-use', hookFixture('claude-code/post-tool-use-write', repo, 'A-1'));
      const out = parse(
        (await b.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'B-1'))).stdout,
      );
      expect(out.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', ...expected });
      if (mode === 'ask')
        expect(out.hookSpecificOutput.permissionDecisionReason).toContain('src/api/auth.py');
      else {
        expect(out.hookSpecificOutput.permissionDecision).toBeUndefined();
        expect(out.hookSpecificOutput.additionalContext).toContain('src/api/auth.py');
      }
    }
  });

  it('Gemini CLI hooks get its decision format', async () => {
    const { repo, a, b } = await setup();
    await a.hook('post-tool-use', hookFixture('claude-code/post-tool-use-write', repo, 'A-1'));
    const out = parse(
      (await b.hook('pre-tool-use', hookFixture('gemini-cli/before-tool-write-file', repo, 'G-1'))).stdout,
    );
    expect(out).toEqual({ decision: 'deny', reason: expect.stringContaining('src/api/auth.py') });
  });

  it('Codex: apply_patch is judged by the files its patch names, and recorded after; the deny is the exact shape Codex takes', async () => {
    const { repo, a, b } = await setup();
    // Codex session A patches auth.py: its PostToolUse records the file as its claim.
    expect(
      (await a.hook('post-tool-use', hookFixture('codex/post-tool-use-apply-patch', repo, 'X-1'))).code,
    ).toBe(0);
    // Codex session B's patch updates auth.py (and adds a file): denied. Codex runs the tool on any
    // other output, so nothing but these fields.
    const out = parse(
      (await b.hook('pre-tool-use', hookFixture('codex/pre-tool-use-apply-patch', repo, 'X-2'))).stdout,
    );
    expect(Object.keys(out)).toEqual(['hookSpecificOutput']);
    expect(Object.keys(out.hookSpecificOutput).sort()).toEqual([
      'hookEventName',
      'permissionDecision',
      'permissionDecisionReason',
    ]);
    expect(out.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(out.hookSpecificOutput.permissionDecisionReason).toContain('src/api/auth.py');
    // A patch of files nobody holds goes ahead.
    const free = hookFixture('codex/pre-tool-use-apply-patch', repo, 'X-2', {
      command: '*** Begin Patch\n*** Add File: src/ui/new.tsx\n+export {}\n*** End Patch\n',
    });
    expect((await b.hook('pre-tool-use', free)).stdout).toBe('');
    // The patch as a word of the command (`["apply_patch", "*** Begin Patch…"]`) is read the same;
    // one that cannot be read at all stands for the whole worktree, so it is judged, not let by.
    const words = hookFixture('codex/pre-tool-use-apply-patch', repo, 'X-2', {
      command: [
        'apply_patch',
        '*** Begin Patch\n*** Update File: src/api/auth.py\n@@\n-x\n+y\n*** End Patch\n',
      ],
    });
    expect(parse((await b.hook('pre-tool-use', words)).stdout).hookSpecificOutput.permissionDecision).toBe(
      'deny',
    );
    const unreadable = hookFixture('codex/pre-tool-use-apply-patch', repo, 'X-2', { command: 42 });
    expect(
      parse((await b.hook('pre-tool-use', unreadable)).stdout).hookSpecificOutput.permissionDecision,
    ).toBe('deny');
  });

  it('Codex: a patch of another function of a file whose login another session holds goes ahead, with a note; of login, is denied', async () => {
    const home = tempDir('collab-home-');
    const source = 'def login(user):\n    pass\n\n\ndef logout(user):\n    pass\n';
    const repo = gitRepo({ 'src/api/auth.py': source });
    const holder = await connectStdio({ cwd: repo, home });
    const b = await hookClient({ cwd: repo, home });
    keepOpen(b);
    try {
      await holder.call('collab_claim', { files: ['src/api/auth.py#login'], intent: 'token auth' });
      const patch = (anchor: string) =>
        hookFixture('codex/pre-tool-use-apply-patch', repo, 'X-2', {
          command: `*** Begin Patch\n*** Update File: src/api/auth.py\n@@ ${anchor}\n-    pass\n+    return None\n*** End Patch\n`,
        });
      const apart = parse((await b.hook('pre-tool-use', patch('def logout(user):'))).stdout);
      expect(apart).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          additionalContext: expect.stringContaining('src/api/auth.py#login is held by'),
        },
      });
      const inside = parse((await b.hook('pre-tool-use', patch('def login(user):'))).stdout);
      expect(inside.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(inside.hookSpecificOutput.permissionDecisionReason).toContain('token auth');
    } finally {
      await holder.close();
    }
  });

  it('Codex cannot be asked from a hook: "ask" denies and says to ask the user; "warn" tells the agent; nothing but its fields', async () => {
    for (const mode of ['ask', 'warn'] as const) {
      const { repo, a, b } = await setup({ enforcement: mode });
      await a.hook('post-tool-use', hookFixture('codex/post-tool-use-apply-patch', repo, 'X-1'));
      const out = parse(
        (await b.hook('pre-tool-use', hookFixture('codex/pre-tool-use-apply-patch', repo, 'X-2'))).stdout,
      );
      expect(Object.keys(out)).toEqual(['hookSpecificOutput']);
      if (mode === 'ask') {
        expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
        expect(out.hookSpecificOutput.permissionDecisionReason).toContain('ask the user whether to go ahead');
      } else {
        expect(out.hookSpecificOutput).toEqual({
          hookEventName: 'PreToolUse',
          additionalContext: expect.stringContaining('src/api/auth.py'),
        });
      }
    }
  });

  it('a session a hook made and then never heard from (a hook run by hand) goes stale after 2 quiet minutes; one that works on stays alive', async () => {
    const { home, repo, a, b } = await setup();
    for (const [client, id] of [
      [a, 'A-1'],
      [b, 'B-1'],
    ] as const)
      expect(
        (await client.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, id))).code,
      ).toBe(0);
    // A was heard at its start only, 3 minutes ago; B started as long ago and was heard again since.
    const db = openSqlite(join(home, 'registry.db'));
    const ago = (minutes: number) => Date.now() - minutes * 60_000;
    db.prepare('UPDATE sessions SET created_at = ?, last_heartbeat = ? WHERE client_session_id = ?').run(
      ago(3),
      ago(3) + 1000,
      'A-1',
    );
    db.prepare('UPDATE sessions SET created_at = ?, last_heartbeat = ? WHERE client_session_id = ?').run(
      ago(10),
      ago(3),
      'B-1',
    );
    db.close();
    const status = await runCli(home, ['status', '--json'], repo);
    const listed = (
      JSON.parse(status.stdout) as { projects: Array<{ sessions: Array<{ id: string; status: string }> }> }
    ).projects.flatMap((p) => p.sessions);
    const state = (clientId: string) => {
      const id = sessionsIn(home).find((s) => s.client_session_id === clientId)!.id;
      return listed.find((s) => s.id === id)?.status;
    };
    expect(state('A-1')).toBe('inactive');
    expect(state('B-1')).toBe('active');
    // Heard again, it is alive again.
    await a.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'A-1'));
    const again = JSON.parse((await runCli(home, ['status', '--json'], repo)).stdout) as {
      projects: Array<{ sessions: Array<{ id: string; status: string }> }>;
    };
    const aId = sessionsIn(home).find((s) => s.client_session_id === 'A-1')!.id;
    expect(again.projects.flatMap((p) => p.sessions).find((s) => s.id === aId)?.status).toBe('active');
  });

  it('input it cannot read stops a tool call, saying why (never in silence); an unknown event goes on; both logged', async () => {
    const { home, repo, a } = await setup();
    // No client's answer can be shaped without knowing the client: exit 2, which every client reads as "stopped".
    for (const input of ['{ not json', '', 'null']) {
      const bad = await a.hook('pre-tool-use', input);
      expect(bad, input).toMatchObject({ code: 2, stdout: '' });
      expect(bad.stderr, input).toContain("could not read this hook's input");
    }
    // Other events have nothing to stop.
    expect(await a.hook('post-tool-use', '{ not json')).toMatchObject({ code: 0, stdout: '' });
    // enforcement_on_error "allow" lets it go, with a word.
    writeFileSync(join(home, 'config.json'), JSON.stringify({ enforcement_on_error: 'allow' }));
    const allowed = await a.hook('pre-tool-use', '{ not json');
    expect(allowed).toMatchObject({ code: 0, stdout: '' });
    expect(allowed.stderr).toContain('goes ahead unchecked');
    writeFileSync(join(home, 'config.json'), '{}');
    // A client that never ends the input does not hold the hook (and its tool call) for ever.
    const { spawn } = await import('node:child_process');
    const { CLI } = await import('../helpers/stdio.js');
    const open = spawn(process.execPath, [CLI, 'hook', 'pre-tool-use'], {
      cwd: repo,
      env: { ...process.env, SESSION_COLLAB_HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    open.stdin.write('{"hook_event_name":"PreToolUse",');
    let said = '';
    open.stderr.on('data', (d) => {
      said += d;
    });
    const code = await new Promise<number | null>((resolve) => open.once('exit', resolve));
    open.stdin.destroy();
    expect(code).toBe(2);
    expect(said).toContain('did not end within 3 s');
    const unknown = await a.hook('before-lunch', hookFixture('claude-code/pre-tool-use-edit', repo, 'A-1'));
    expect(unknown).toMatchObject({ code: 0, stdout: '' });
    expect(unknown.stderr).toContain('unknown hook event');
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(home, 'logs', 'collab.log'), 'utf8')).toContain('"event":"hook.failed"');
  });
});

describe('hooks that cannot work say so, once per session', () => {
  it('a broken config or an unreadable database: one line to the user per session, and every edit still decided', async () => {
    for (const [label, breakIt] of [
      [
        'a broken config.json',
        (home: string) => writeFileSync(join(home, 'config.json'), '{ "enforcement": '),
      ],
      [
        'an unreadable database',
        (home: string) => {
          rmSync(join(home, 'registry.db'), { force: true });
          mkdirSync(join(home, 'registry.db'));
        },
      ],
    ] as const) {
      const { home, repo, a } = await setup();
      breakIt(home);
      const start = parse(
        (await a.hook('session-start', hookFixture('claude-code/session-start', repo, 'A-1'))).stdout,
      );
      expect(start?.systemMessage, label).toMatch(/^session-collab is not working here \(.+\)\. /);
      expect(start?.systemMessage, label).toContain('session-collab doctor');
      // Told once: not again with each prompt or tool call of that session.
      const prompt = await a.hook(
        'user-prompt-submit',
        hookFixture('claude-code/user-prompt-submit', repo, 'A-1'),
      );
      expect(parse(prompt.stdout)?.systemMessage, label).toBeUndefined();
      // An edit is still put to the user every time (enforcement_on_error: ask), with why.
      const edit = parse(
        (await a.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'A-1'))).stdout,
      );
      expect(edit.hookSpecificOutput.permissionDecision, label).toBe('ask');
      expect(edit.hookSpecificOutput.permissionDecisionReason, label).toContain('could not check this Edit');
      // Another session is told too.
      const other = parse(
        (await a.hook('session-start', hookFixture('claude-code/session-start', repo, 'A-2'))).stdout,
      );
      expect(other?.systemMessage, label).toContain('is not working here');
    }
  });
});

/** A pre-tool-use hook run while this test process holds the database's write lock. */
async function underLock(
  onError: string | undefined,
  fixture: string,
  sessionId: string,
  event = 'pre-tool-use',
) {
  const { home, repo, b } = await setup(onError ? { enforcement_on_error: onError } : {});
  const blocker = openSqlite(join(home, 'registry.db'));
  blocker.prepare('BEGIN IMMEDIATE').run();
  try {
    return await b.hook(event, hookFixture(fixture, repo, sessionId));
  } finally {
    blocker.prepare('ROLLBACK').run();
    blocker.close();
  }
}

describe('hooks answer in bounded time, and never let an edit through unchecked in silence', () => {
  it('while another process holds the database write lock: an edit it cannot check is put to the user, with why', async () => {
    for (const [mode, expected] of [
      [undefined, 'ask'],
      ['deny', 'deny'],
      ['allow', undefined],
    ] as const) {
      // A session id never seen: its session has to be written first, which the lock prevents.
      const out = await underLock(mode, 'claude-code/pre-tool-use-edit', 'B-new');
      expect(out.code).toBe(0);
      const answer = JSON.parse(out.stdout);
      expect(answer.systemMessage, String(mode)).toContain('could not check this Edit');
      // It names the process holding the lock (this test's) and what to do.
      expect(answer.systemMessage, String(mode)).toContain(`pid ${process.pid}`);
      expect(answer.systemMessage, String(mode)).toContain('holds its write lock');
      expect(answer.hookSpecificOutput?.permissionDecision, String(mode)).toBe(expected);
    }
  });

  it('Codex, while the write lock is held: an apply_patch it cannot check is denied (Codex would run it on anything else), or with "allow" goes ahead with the agent told', async () => {
    for (const [mode, expected] of [
      [undefined, 'deny'],
      ['allow', undefined],
    ] as const) {
      const out = await underLock(mode, 'codex/pre-tool-use-apply-patch', 'X-new');
      expect(out.code).toBe(0);
      const answer = JSON.parse(out.stdout);
      expect(Object.keys(answer), String(mode)).toEqual(['hookSpecificOutput']);
      expect(answer.hookSpecificOutput.permissionDecision, String(mode)).toBe(expected);
      const said =
        answer.hookSpecificOutput.permissionDecisionReason ?? answer.hookSpecificOutput.additionalContext;
      expect(said, String(mode)).toContain('could not check this apply_patch');
    }
  });

  it('Cursor, while the write lock is held: a Write it cannot check is denied with why for the user and the agent', async () => {
    const out = await underLock(undefined, 'cursor/pre-tool-use-write', 'conv-new', 'preToolUse');
    expect(out.code).toBe(0);
    const answer = JSON.parse(out.stdout);
    expect(Object.keys(answer)).toEqual(['permission', 'user_message', 'agent_message']);
    expect(answer.permission).toBe('deny');
    expect(answer.agent_message).toContain('could not check this Write');
    expect(answer.agent_message).toContain('ask the user whether to go ahead');
  });

  it('while another process holds the database write lock: a post-tool-use goes on, says why once, logs why', async () => {
    const { home, repo, a } = await setup();
    await a.hook('session-start', hookFixture('claude-code/session-start', repo, 'A-1'));
    const blocker = openSqlite(join(home, 'registry.db'));
    blocker.prepare('BEGIN IMMEDIATE').run();
    try {
      const started = Date.now();
      const out = await a.hook('post-tool-use', hookFixture('claude-code/post-tool-use-write', repo, 'A-1'));
      expect(Date.now() - started).toBeLessThan(8000);
      expect(out.code).toBe(0);
      expect(parse(out.stdout).systemMessage).toContain('is not working here');
      expect(parse(out.stdout).systemMessage).toContain(`pid ${process.pid}`);
      // Once per session.
      const again = await a.hook(
        'post-tool-use',
        hookFixture('claude-code/post-tool-use-write', repo, 'A-1'),
      );
      expect(again).toMatchObject({ code: 0, stdout: '' });
    } finally {
      blocker.prepare('ROLLBACK').run();
      blocker.close();
    }
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(home, 'logs', 'collab.log'), 'utf8')).toMatch(
      /"event":"hook.failed".*stayed locked|stayed locked.*"event":"hook.failed"/,
    );
  });
});

describe('hooks and the MCP server of one client share its session', () => {
  it('Claude Code passes CLAUDE_CODE_SESSION_ID to the server; hooks send session_id', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/api/auth.py': 'x\n' });
    const a = await connectStdio({ cwd: repo, home, clientSessionId: 'A-1', hooks: true });
    const b = await hookClient({ cwd: repo, home });
    keepOpen(b);
    try {
      await a.hook('session-start', hookFixture('claude-code/session-start', repo, 'A-1'));
      const claim = await a.call<{ claim_id: string }>('collab_claim', {
        files: ['src/api/*'],
        intent: 'refactor login to JWT',
      });
      await a.hook('post-tool-use', hookFixture('claude-code/post-tool-use-write', repo, 'A-1'));
      const { sessions } = await a.call<{ sessions: Array<{ active_claims: number }> }>(
        'collab_session_list',
      );
      expect(sessions).toHaveLength(1);
      expect(sessions[0]!.active_claims).toBe(2);
      const denied = parse(
        (await b.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'B-1'))).stdout,
      );
      expect(denied.hookSpecificOutput.permissionDecisionReason).toContain('refactor login to JWT');
      await a.call('collab_release', { claim_id: claim.claim_id, status: 'completed' });
      // The edit claim remains until A's session ends.
      expect(
        parse(
          (await b.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'B-1'))).stdout,
        ),
      ).not.toBeNull();
    } finally {
      await a.close();
    }
  });

  it("with the machine's server running, a hook is answered by its first step alone; without, the whole hook answers the same", async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/api/auth.py': 'x\n' });
    // The claim's session is served in its client's own process; the machine's server is started
    // by a relay of its own, so that once that relay is gone nothing starts the server again.
    const a = await connectStdio({
      cwd: repo,
      home,
      clientSessionId: 'A-1',
      hooks: true,
      args: ['--in-process'],
    });
    const starter = await connectStdio({ cwd: repo, home });
    const b = await hookClient({ cwd: repo, home });
    keepOpen(b);
    const caches = () => (existsSync(join(home, 'cache')) ? readdirSync(join(home, 'cache')) : []);
    try {
      await a.call('collab_claim', { files: ['src/api/auth.py'], intent: 'refactor login to JWT' });
      await starter.call('collab_session_list');
      const edit = hookFixture('claude-code/pre-tool-use-edit', repo, 'B-1');
      const first = await b.hook('pre-tool-use', edit);
      expect(parse(first.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
      // The server answered: the whole hook (dist/hot.cjs) was never loaded, so it has no code cache.
      expect(caches().some((f) => f.startsWith('hook-'))).toBe(true);
      expect(caches().some((f) => f.startsWith('hot-'))).toBe(false);
      await starter.close();
      await stopServer(home);
      const second = await b.hook('pre-tool-use', edit);
      // The same answer, but for how long ago the claim was made.
      const ago = (stdout: string) => stdout.replace(/since \d+\w* ago/g, 'since … ago');
      expect(ago(second.stdout)).toBe(ago(first.stdout));
      expect(caches().some((f) => f.startsWith('hot-'))).toBe(true);
    } finally {
      await a.close();
    }
  });

  it('Codex gives its MCP server no session id: its hooks and its server are told together by the Codex process', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/api/auth.py': 'def login(user):\n    pass\n' });
    const a = await connectStdio({ cwd: repo, home, hooks: true });
    const b = await hookClient({ cwd: repo, home });
    keepOpen(b);
    try {
      await a.hook('session-start', hookFixture('codex/pre-tool-use-apply-patch', repo, 'X-1'));
      await a.call('collab_claim', { files: ['src/api/*'], intent: 'refactor login to JWT' });
      // Its own patch of the file it claimed goes ahead; another Codex's is stopped.
      expect(
        (await a.hook('pre-tool-use', hookFixture('codex/pre-tool-use-apply-patch', repo, 'X-1'))).stdout,
      ).toBe('');
      await a.hook('post-tool-use', hookFixture('codex/post-tool-use-apply-patch', repo, 'X-1'));
      const { sessions } = await a.call<{ sessions: Array<{ active_claims: number }> }>(
        'collab_session_list',
      );
      expect(sessions).toHaveLength(1);
      const denied = parse(
        (await b.hook('pre-tool-use', hookFixture('codex/pre-tool-use-apply-patch', repo, 'X-2'))).stdout,
      );
      expect(denied.hookSpecificOutput.permissionDecisionReason).toContain('refactor login to JWT');
    } finally {
      await a.close();
    }
  });
});
