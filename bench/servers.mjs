// The servers a benchmark runs side by side, each behind one small adapter: how to start it over
// stdio, how to speak claim → check → release to it, how to seed its database with live claims,
// and its PreToolUse hook. `ours` is the built CLI; `peer(dir)` a built leaf76/session-collab-mcp
// (the server with the same tool names), found through PEER_DIR.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stdioServer } from './stdio-client.mjs';

export const CLI = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));

/** The pattern of the k-th seeded claim of session s: files across packages, every tenth a folder. */
export function seededPattern(k, s) {
  return k % 10 === 0 ? `packages/p${s}/src/m${k}/**` : `packages/p${s}/src/m${k % 10}/file${k}.ts`;
}

/** What a client checks in the latency runs: a held file, inside a held folder, free, and two. */
export const CHECK_TARGETS = [
  ['packages/p42/src/m3/file3.ts'],
  ['packages/p7/src/m0/deep/x.ts'],
  ['packages/p99/README.md'],
  ['src/unclaimed.ts', 'packages/p1/src/m1/file11.ts'],
];

/** How many of `ids` are not completed claims in the database `file` (both servers name them so). */
async function notCompletedIn(file, ids) {
  const { lib } = await import('./common.mjs');
  const db = lib.sqliteConnection(file, { readonly: true });
  const done = new Set(
    db
      .prepare("SELECT id FROM claims WHERE status = 'completed'")
      .all()
      .map((r) => r.id),
  );
  db.close();
  return ids.filter((id) => !done.has(id)).length;
}

/** `count` sessions of the project in `repo`, started through the tool in a library App. */
async function startSessions(app, repo, count, { lib, tool }) {
  const started = [];
  for (let s = 0; s < count; s++) {
    const connection = new lib.Connection(app, app.sessions, {
      cwd: repo,
      client: () => 'bench',
      server: lib.ownProcess(),
    });
    const { session_id } = await tool(app, connection, 'collab_session_start', {
      name: `s${s}`,
      project_root: repo,
    });
    started.push({ connection, id: session_id });
  }
  return started;
}

const errorText = (r) => {
  const error = r.result?.structuredContent?.error;
  if (error) return `${error.code}: ${error.message}`;
  if (r.result?.isError) return r.result.content?.[0]?.text ?? 'error';
  if (!r.result) return 'no answer';
  return null;
};

export const ours = {
  name: 'ours',
  /** Its `serve` is a relay: the machine's server (found by its home) does the work. */
  machineServer: true,
  command: [process.execPath, CLI, 'serve'],
  env: (home) => ({ SESSION_COLLAB_HOME: home }),
  /** The session is the connection's own, started on first use. */
  async startSession() {
    return null;
  },
  claim: (server, _sid, files) => server.call('collab_claim', { files, intent: 'bench' }),
  claimId: (r) => r.result?.structuredContent?.claim_id ?? null,
  check: (server, _sid, files) => server.call('collab_check', { files }),
  release: (server, _sid, claimId) =>
    server.call('collab_release', { claim_id: claimId, status: 'completed' }),
  errorText,
  /** `claims` live claims held by 100 sessions of the project in `repo`, written straight to the store. */
  async seed(home, repo, claims) {
    const common = await import('./common.mjs');
    const { homePaths, lib } = common;
    const app = new lib.App({ paths: homePaths(home), config: lib.DEFAULT_CONFIG });
    const sessions = (await startSessions(app, repo, 100, common)).map((s) => s.id);
    const project = (await app.sessions.get(sessions[0])).project_id;
    await app.store.write(async () => {
      for (let k = 0; k < claims; k++) {
        const pattern = seededPattern(k, k % 100);
        await app.store.claims.insert(
          {
            id: `c${k}`,
            session_id: sessions[k % 100],
            project_id: project,
            intent: `work ${k}`,
            scope: 'small',
            exclusive: 0,
            created_at: app.now(),
            expires_at: null,
          },
          [{ pattern, base: pattern.replace(/\/\*\*$/, '') }],
        );
      }
    });
    app.store.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    await app.close();
  },
  /** How many of the claims `ids` are not completed. */
  async notCompleted(home, ids) {
    const { homePaths } = await import('./common.mjs');
    return notCompletedIn(homePaths(home).database, ids);
  },
  hook: {
    command: [process.execPath, CLI, 'hook', 'pre-tool-use'],
    /** 20 sessions of `repo` holding 50 claims each, through the tools. */
    async seed(home, repo) {
      const common = await import('./common.mjs');
      const { homePaths, lib, tool } = common;
      // On the team database when SESSION_COLLAB_DATABASE_URL is set (the team-mode hook figure).
      const app = await lib.App.open({ paths: homePaths(home), config: lib.DEFAULT_CONFIG });
      for (const [s, { connection }] of (await startSessions(app, repo, 20, common)).entries())
        for (let k = 0; k < 50; k++)
          await tool(app, connection, 'collab_claim', {
            files: [`pkg${s}/src/file${k}.ts`],
            intent: `work ${s}/${k}`,
          });
      await app.close();
    },
    denied: (out) => out.includes('"permissionDecision":"deny"'),
  },
};

/**
 * Ours from another build (`cli`), with `env` added to every process's: the same adapter under
 * another name (the SQLite driver comparison, bench/drivers.mjs).
 */
export function oursVariant(name, cli, env) {
  return {
    ...ours,
    name,
    command: [process.execPath, cli, 'serve'],
    env: (home) => ({ ...ours.env(home), ...env }),
    hook: { ...ours.hook, command: [process.execPath, cli, 'hook', 'pre-tool-use'] },
  };
}

/** The better-sqlite3 variant of ours, in a worker process: its build is named by the parent. */
export const BETTER_SQLITE3 = 'ours, better-sqlite3';

/** A benchmark target by its name, as a worker process is told it. */
export function targetNamed(name) {
  if (name === 'peer') return peer(process.env.PEER_DIR);
  if (name === BETTER_SQLITE3)
    return oursVariant(BETTER_SQLITE3, process.env.BENCH_BETTER_SQLITE3_CLI, {
      SESSION_COLLAB_SQLITE: 'better-sqlite3',
    });
  return ours;
}

/** The peer built in `dir`; null when it is not there. */
export function peer(dir) {
  const cli = `${dir}/dist/cli.js`;
  const hook = `${dir}/dist/hooks/pretool-claim.js`;
  if (!existsSync(cli)) return null;
  const dbOf = (home) => `${home}/peer.db`;
  const claimCall = (server, sid, args) => server.call('collab_claim', { session_id: sid, ...args });
  const serve = (home, repo) =>
    stdioServer([process.execPath, cli], {
      cwd: repo,
      env: { ...process.env, SESSION_COLLAB_DB: dbOf(home) },
    });
  return {
    name: 'peer',
    command: [process.execPath, cli],
    env: (home) => ({ SESSION_COLLAB_DB: dbOf(home) }),
    startSession: peerSession,
    // Its claims refuse overlaps unless asked: allowed here, as ours are advisory by default.
    claim: (server, sid, files) =>
      claimCall(server, sid, { action: 'create', files, intent: 'bench', allow_conflicts: true }),
    claimId(r) {
      const body = r.result?.structuredContent ?? safeJson(r.result?.content?.[0]?.text);
      return body?.claim_id ?? null;
    },
    check: (server, sid, files) => claimCall(server, sid, { action: 'check', files }),
    release: (server, sid, claimId) =>
      claimCall(server, sid, { action: 'release', claim_id: claimId, status: 'completed' }),
    errorText,
    /** The same claims as ours: 100 sessions started through the tool, claims written to its tables. */
    async seed(home, repo, claims) {
      const server = serve(home, repo);
      const sessions = [];
      for (let s = 0; s < 100; s++) sessions.push(await peerSession(server, repo, `s${s}`));
      await server.close();
      const { lib } = await import('./common.mjs');
      const db = lib.sqliteConnection(dbOf(home));
      const claim = db.prepare(
        "INSERT INTO claims (id, session_id, intent, scope, status) VALUES (?, ?, ?, 'small', 'active')",
      );
      const file = db.prepare('INSERT INTO claim_files (claim_id, file_path, is_pattern) VALUES (?, ?, ?)');
      db.exec('BEGIN');
      for (let k = 0; k < claims; k++) {
        const pattern = seededPattern(k, k % 100);
        claim.run(`c${k}`, sessions[k % 100], `work ${k}`);
        file.run(`c${k}`, pattern, pattern.endsWith('**') ? 1 : 0);
      }
      db.exec('COMMIT');
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      db.close();
    },
    notCompleted: (home, ids) => notCompletedIn(dbOf(home), ids),
    hook: {
      command: [process.execPath, hook],
      async seed(home, repo) {
        const server = serve(home, repo);
        for (let s = 0; s < 20; s++) {
          const sid = await peerSession(server, repo, `s${s}`);
          for (let k = 0; k < 50; k++)
            await claimCall(server, sid, {
              action: 'create',
              files: [`pkg${s}/src/file${k}.ts`],
              intent: `work ${s}/${k}`,
            });
        }
        await server.close();
      },
      // It answers a denial with exit code 2 and the decision on stderr.
      denied: (_out, err, status) => status === 2 && err.includes('"permissionDecision":"deny"'),
    },
  };
}

async function peerSession(server, repo, name) {
  const r = await server.call('collab_session_start', { name, project_root: repo, force_new: true });
  return r.result?.structuredContent?.session_id ?? JSON.parse(r.result.content[0].text).session_id;
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
