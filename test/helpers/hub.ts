import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { Client, type ClientCapabilities, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach } from 'vitest';
import { CLI, requireBuild } from './stdio.js';
import { toolCaller } from './tool-caller.js';

export interface HubProcess {
  home: string;
  url: string;
  mcp: string;
  login: string;
  proc: ChildProcess;
  /** Everything the hub wrote to stderr. */
  stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** The built `session-collab hub` as its own process, on a free loopback port (unless `listen` says). */
export async function startHubProcess(options: {
  home: string;
  listen?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}): Promise<HubProcess> {
  requireBuild();
  const proc = spawn(
    process.execPath,
    [CLI, 'hub', '--listen', options.listen ?? '127.0.0.1:0', '--json', ...(options.args ?? [])],
    {
      cwd: options.cwd ?? options.home,
      env: { ...process.env, SESSION_COLLAB_HOME: options.home, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  proc.stderr!.on('data', (d) => {
    stderr += d;
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    proc.once('exit', (code) => reject(new Error(`hub exited (${code}): ${stderr}`)));
  });
  const info = JSON.parse(line) as { url: string; mcp: string; login: string; error?: unknown };
  // A hub that could not start says so on the same line (`--json`), then exits.
  if (info.error !== undefined) throw new Error(`hub failed: ${JSON.stringify(info.error)}`);
  return {
    ...info,
    home: options.home,
    proc,
    stderr: () => stderr,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill(signal);
      }),
  };
}

/** The real SDK client over Streamable HTTP, as an agent in `project` (and with a token, when given). */
export async function connectHttp(options: {
  mcp: string;
  project?: string;
  token?: string;
  name?: string;
  sessionId?: string;
  headers?: Record<string, string>;
  capabilities?: ClientCapabilities;
  setup?: (client: Client) => void;
}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.project) headers['x-collab-project'] = options.project;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const transport = new StreamableHTTPClientTransport(new URL(options.mcp), {
    requestInit: { headers },
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
  });
  const client = new Client(
    { name: options.name ?? 'http-test-client', version: '1.0.0' },
    { capabilities: options.capabilities ?? {} },
  );
  options.setup?.(client);
  await client.connect(transport);
  return {
    client,
    transport,
    ...toolCaller(client),
    close: () => client.close(),
  };
}

/** A new one-time dashboard login link, as `session-collab dashboard` prints it. */
export function loginLink(home: string): string {
  const out = execFileSync(process.execPath, [CLI, 'dashboard', '--json'], {
    env: { ...process.env, SESSION_COLLAB_HOME: home },
    encoding: 'utf8',
  });
  return (JSON.parse(out) as { login: string }).login;
}

/** A dashboard login: the cookie header and the CSRF token of its pages. */
export async function dashboardLogin(hub: {
  url: string;
  login: string;
}): Promise<{ cookie: string; csrf: string }> {
  const login = await fetch(hub.login, { redirect: 'manual' });
  const set = login.headers.get('set-cookie') ?? '';
  const cookie = set.split(';')[0]!;
  const page = await fetch(`${hub.url}/`, { headers: { cookie } });
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  return { cookie, csrf };
}

/**
 * Hubs and HTTP clients a test file starts, each stopped after its test (registered with vitest's
 * afterEach when called at the top of a file).
 */
export function stoppedAfterEach() {
  const hubs: HubProcess[] = [];
  const clients: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
    await Promise.all(hubs.splice(0).map((h) => h.stop()));
  });
  return {
    async hub(options: Parameters<typeof startHubProcess>[0]): Promise<HubProcess> {
      const h = await startHubProcess(options);
      hubs.push(h);
      return h;
    },
    async client(options: Parameters<typeof connectHttp>[0]) {
      const c = await connectHttp(options);
      clients.push(c);
      return c;
    },
  };
}
