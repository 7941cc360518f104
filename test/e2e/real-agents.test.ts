/**
 * The real Claude Code CLI as a sub-worker (the agent toolset), with a scripted model: a fake
 * Messages API on loopback that answers with the facts the conversation it is sent holds, so the
 * second call's answer shows it was sent the first call's context. Needs the `claude` executable:
 * .ci/run installs it into a temporary folder and sets SESSION_COLLAB_CLAUDE_BIN; elsewhere the test
 * is skipped, saying so.
 */
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeApi } from '../fixtures/fake-anthropic-api.js';
import { findAgentCli } from '../helpers/agent-cli.js';
import { connectStdio } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const claude = findAgentCli('SESSION_COLLAB_CLAUDE_BIN', 'claude', 'test/e2e/real-agents.test.ts');
type Connected = Awaited<ReturnType<typeof connectStdio>>;
type Run = { status: string; result?: string; error?: string; session_id?: string; resumed_from?: string };
const open: Connected[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
});

describe.skipIf(!claude)('the real Claude Code CLI as a sub-worker', () => {
  it('continues its conversation: the second call is sent the first one’s context', async () => {
    // The model answers with every "fact N: …" the user said in the conversation it is sent.
    const api = await startFakeApi((body) => {
      const said = JSON.stringify(
        (body.messages as Array<{ role: string }>).filter((m) => m.role === 'user'),
      );
      const facts = [...said.matchAll(/fact \d: [a-z0-9 ]+/g)].map((m) => m[0]);
      return [{ type: 'text', text: `Known: ${[...new Set(facts)].join(' | ')}` }];
    });
    try {
      const c = await connectStdio({
        cwd: gitRepo(),
        home: tempDir('collab-home-'),
        args: ['--toolsets', 'collab,agent'],
        env: {
          PATH: `${dirname(claude!)}:${process.env.PATH}`,
          HOME: tempDir('claude-home-'),
          ANTHROPIC_API_KEY: 'sk-ant-api03-test',
          ANTHROPIC_BASE_URL: api.url,
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
      });
      open.push(c);
      const first = await c.call<Run>('execute_claude', {
        prompt: 'fact 1: the port is 8080',
        wait_seconds: 100,
      });
      expect(first, first.error).toMatchObject({
        status: 'succeeded',
        result: 'Known: fact 1: the port is 8080',
      });
      const second = await c.call<Run>('execute_claude', {
        prompt: 'fact 2: the host is db',
        wait_seconds: 100,
      });
      expect(second, second.error).toMatchObject({
        status: 'succeeded',
        result: 'Known: fact 1: the port is 8080 | fact 2: the host is db',
        resumed_from: first.session_id,
      });
      // --fork-session: the continued call is a new point of the conversation.
      expect(second.session_id).not.toBe(first.session_id);
    } finally {
      await api.close();
    }
  }, 240_000);
});
