import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { toolCaller } from './app.js';

export const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));

export function requireBuild(): void {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run \`npm run build\` first (\`npm test\` does).`);
}

/** The built `session-collab serve`, started by the real SDK client over stdio, as a client would. */
export async function connectStdio(options: { cwd: string; home: string; name?: string; args?: string[] }) {
  requireBuild();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', ...(options.args ?? [])],
    cwd: options.cwd,
    env: { ...(process.env as Record<string, string>), SESSION_COLLAB_HOME: options.home },
    stderr: 'pipe',
  });
  const client = new Client({ name: options.name ?? 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('server process did not start');
  return { client, pid, ...toolCaller(client), close: () => client.close() };
}

/** Resolves once the process is gone (polling: it is not our child in every case). */
export async function waitForExit(pid: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`process ${pid} still runs after ${timeoutMs} ms`);
}
