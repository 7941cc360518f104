import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { App } from '../../src/app/app.js';
import { type Config, DEFAULT_CONFIG } from '../../src/app/config.js';
import { homeAt } from '../../src/app/home.js';
import { ownProcess } from '../../src/features/sessions/client-sessions.js';
import { Connection } from '../../src/features/sessions/connection.js';
import { select } from '../../src/mcp/registry.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { Store } from '../../src/store/store.js';
import { freshPgDatabase } from './pg.js';
import { cloneOf, gitRepo, tempDir } from './temp.js';
import { toolCaller } from './tool-caller.js';

/**
 * The backend the tool suite runs on: the embedded SQLite file, or with
 * SESSION_COLLAB_TEST_BACKEND=postgresql (the `postgresql` project of vitest.config.ts) a fresh
 * PostgreSQL database per home folder.
 */
export const TEST_BACKEND: 'sqlite' | 'postgresql' =
  process.env.SESSION_COLLAB_TEST_BACKEND === 'postgresql' ? 'postgresql' : 'sqlite';

/** The team database of each home folder the tests made (apps of one home share it). */
const teamDatabases = new Map<string, Promise<string>>();

/**
 * An App over a fresh home folder (or a given one, to share a database), on the test backend
 * (`backend` forces one: tests of the embedded file itself).
 */
export async function testApp(
  options: {
    home?: string;
    config?: Partial<Config>;
    now?: () => number;
    backend?: 'sqlite' | 'postgresql';
  } = {},
): Promise<App> {
  const home = options.home ?? tempDir('collab-home-');
  const base = {
    paths: homeAt(home),
    config: { ...DEFAULT_CONFIG, ...options.config },
    ...(options.now ? { now: options.now } : {}),
  };
  if ((options.backend ?? TEST_BACKEND) === 'sqlite') return new App(base);
  let url = teamDatabases.get(home);
  if (!url) {
    url = freshPgDatabase();
    teamDatabases.set(home, url);
  }
  return new App({ ...base, store: await Store.openTeam(await url, 4) });
}

/** The team database of a home folder's apps on PostgreSQL (undefined on SQLite, or before its first app). */
export function teamDatabaseOf(home: string): Promise<string> | undefined {
  return teamDatabases.get(home);
}

/** The real SDK client connected to our server over the in-memory transport. */
export async function connectInMemory(
  app: App,
  cwd: string,
  clientName = 'test-client',
  toolsets = ['collab', 'realm'],
) {
  const connection = new Connection(app, app.sessions, {
    cwd,
    client: () => clientName,
    server: ownProcess(),
  });
  const server = createMcpServer(app, connection, await select(toolsets));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(clientSide);
  return { client, connection, ...toolCaller(client), close: () => client.close() };
}

/**
 * One repository holding `files`, cloned twice, with a session "alice" and "bob" started in the
 * clones over the in-memory transport: two copies of one project, on one machine.
 */
export async function twoClonesInMemory(app: App, files: Record<string, string>) {
  const origin = gitRepo(files);
  const aliceDir = cloneOf(origin);
  const bobDir = cloneOf(origin);
  const alice = await connectInMemory(app, aliceDir, 'alice');
  const bob = await connectInMemory(app, bobDir, 'bob');
  await alice.call('collab_session_start', { name: 'alice', project_root: aliceDir });
  await bob.call('collab_session_start', { name: 'bob', project_root: bobDir });
  return { origin, aliceDir, bobDir, alice, bob };
}
