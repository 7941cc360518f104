/** Whether an agent CLI is there to delegate to: where it was found, its version, its permission setting. */
import type { AgentsConfig } from '../../app/config.js';
import type { AgentProvider } from '../../core/agent-events.js';
import { findCli, runCli } from '../../integrations/agent-cli.js';
import { adapterOf } from './providers.js';

/** The CLI found for a provider, its version, and the permission setting in force. */
export async function checkCli(
  config: AgentsConfig,
  provider: AgentProvider,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{
  found: boolean;
  path: string | null;
  version: string | null;
  permission: string;
  tried: string[];
}> {
  const adapter = adapterOf(provider);
  const { path, tried } = findCli(provider, env);
  let version: string | null = null;
  if (path) {
    const lines: string[] = [];
    await runCli({
      file: path,
      args: ['--version'],
      cwd: process.cwd(),
      input: '',
      env,
      timeoutMs: 10_000,
      maxLineChars: 10_000,
      signal: new AbortController().signal,
      onLine: (line) => lines.push(line),
    }).catch(() => null);
    version = lines[0]?.trim() || null;
  }
  return {
    found: path !== null,
    path,
    version,
    permission: adapter.permission(config),
    tried,
  };
}
