import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { claudeHooks } from '../../src/integrations/client-setup.js';

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));

describe('the Claude Code plugin (plugin/)', () => {
  it('ships the same hooks as `init` writes, run as `session-collab` from PATH', () => {
    expect(read('plugin/hooks/hooks.json').hooks).toEqual(
      claudeHooks({ command: 'session-collab', args: [] }),
    );
    expect(read('plugin/.mcp.json')).toEqual({
      mcpServers: { 'session-collab': { command: 'session-collab', args: ['serve'] } },
    });
  });

  it('carries the package version, in its manifest and the marketplace entry', () => {
    const { version } = read('package.json');
    expect(read('plugin/.claude-plugin/plugin.json').version).toBe(version);
    expect(read('.claude-plugin/marketplace.json').plugins[0]).toMatchObject({
      name: 'session-collab',
      source: './plugin',
      version,
    });
  });
});
