/**
 * The real Claude Code CLI as a sub-worker (the agent toolset), with a scripted model: a fake
 * Messages API on loopback that answers with the facts the conversation it is sent holds, so the
 * second call's answer shows it was sent the first call's context. Needs the `claude` executable:
 * .ci/run installs it into a temporary folder and sets SESSION_COLLAB_CLAUDE_BIN; elsewhere the test
 * is skipped, saying so.
 */
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeApi } from '../fixtures/fake-anthropic-api.js';
import { codexHome, startFakeResponses } from '../fixtures/fake-responses-api.js';
import { startLoopbackApi } from '../fixtures/loopback-api.js';
import { findAgentCli, geminiUserHome } from '../helpers/agent-cli.js';
import { connectStdio } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const claude = findAgentCli('SESSION_COLLAB_CLAUDE_BIN', 'claude', 'test/e2e/real-agents.test.ts');
const gemini = findAgentCli('SESSION_COLLAB_GEMINI_BIN', 'gemini', 'test/e2e/real-agents.test.ts');
const codex = findAgentCli('SESSION_COLLAB_CODEX_BIN', 'codex', 'test/e2e/real-agents.test.ts');

/** Every "fact N: …" a conversation's user turns hold, as the scripted models answer them. */
const factsIn = (turns: unknown) => [
  ...new Set([...JSON.stringify(turns).matchAll(/fact \d: [a-z0-9 ]+/g)].map((m) => m[0])),
];
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

  it('a claude that cannot work says why in its own words (no credentials: "Not logged in")', async () => {
    const c = await connectStdio({
      cwd: gitRepo(),
      home: tempDir('collab-home-'),
      args: ['--toolsets', 'collab,agent'],
      env: {
        PATH: `${dirname(claude!)}:${process.env.PATH}`,
        HOME: tempDir('claude-home-'),
        ANTHROPIC_API_KEY: '',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    });
    open.push(c);
    const run = await c.call<Run>('execute_claude', { prompt: 'hello', wait_seconds: 100 });
    expect(run).toMatchObject({ status: 'failed', error: expect.stringContaining('Not logged in') });
    expect(run.error).toMatch(/^claude reported an error: /);
  }, 120_000);
});

describe.skipIf(!gemini)('the real Gemini CLI as a sub-worker', () => {
  it('continues its session: the second call is sent the first one’s context', async () => {
    // A Gemini API that rates every request simple, and answers the conversation with its facts.
    const api = await startLoopbackApi((path, body, res) => {
      const conversation = (body.contents as Array<{ role: string }> | undefined) ?? [];
      const main = JSON.stringify(body.tools ?? []).length > 2;
      const text = main
        ? `Known: ${factsIn(conversation.filter((c) => c.role === 'user')).join(' | ')}`
        : JSON.stringify({ complexity_reasoning: 'simple', complexity_score: 10 });
      const chunk = {
        candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      };
      if (path.includes('streamGenerateContent')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify(chunk)}\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(path.includes('countTokens') ? { totalTokens: 10 } : chunk));
      }
    });
    try {
      const userHome = geminiUserHome();
      const c = await connectStdio({
        cwd: gitRepo(),
        home: tempDir('collab-home-'),
        args: ['--toolsets', 'collab,agent'],
        env: {
          PATH: `${dirname(gemini!)}:${process.env.PATH}`,
          HOME: userHome,
          GEMINI_API_KEY: 'test-key',
          GOOGLE_GEMINI_BASE_URL: api.url,
        },
      });
      open.push(c);
      const first = await c.call<Run>('execute_claude', {
        provider: 'gemini',
        prompt: 'fact 1: the port is 8080',
        wait_seconds: 100,
      });
      expect(first, first.error).toMatchObject({
        status: 'succeeded',
        result: 'Known: fact 1: the port is 8080',
      });
      const second = await c.call<Run>('execute_claude', {
        provider: 'gemini',
        prompt: 'fact 2: the host is db',
        wait_seconds: 100,
      });
      expect(second, second.error).toMatchObject({
        status: 'succeeded',
        result: 'Known: fact 1: the port is 8080 | fact 2: the host is db',
        resumed_from: first.session_id,
        session_id: first.session_id,
      });
    } finally {
      await api.close();
    }
  }, 240_000);
});

describe.skipIf(!codex)('the real Codex CLI as a sub-worker', () => {
  it('continues its thread: the second call is sent the first one’s context', async () => {
    const api = await startFakeResponses((body) => `Known: ${factsIn(body.input ?? []).join(' | ')}`);
    try {
      const c = await connectStdio({
        cwd: gitRepo(),
        home: tempDir('collab-home-'),
        args: ['--toolsets', 'collab,agent'],
        env: {
          PATH: `${dirname(codex!)}:${process.env.PATH}`,
          CODEX_HOME: codexHome(join(tempDir('codex-'), 'home'), api.url),
          FAKE_OPENAI_KEY: 'test-key',
        },
      });
      open.push(c);
      const first = await c.call<Run>('execute_claude', {
        provider: 'codex',
        prompt: 'fact 1: the port is 8080',
        wait_seconds: 100,
      });
      expect(first, first.error).toMatchObject({
        status: 'succeeded',
        result: 'Known: fact 1: the port is 8080',
      });
      const second = await c.call<Run>('execute_claude', {
        provider: 'codex',
        prompt: 'fact 2: the host is db',
        wait_seconds: 100,
      });
      expect(second, second.error).toMatchObject({
        status: 'succeeded',
        result: 'Known: fact 1: the port is 8080 | fact 2: the host is db',
        resumed_from: first.session_id,
        session_id: first.session_id,
      });
    } finally {
      await api.close();
    }
  }, 240_000);
});
