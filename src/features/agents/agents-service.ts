import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { AppContext } from '../../app/context.js';
import { type AgentEvent, type AgentProvider, parseAgentLine } from '../../core/agent-events.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { decodeCursor, type Page, pageOf } from '../../core/page.js';
import { findCli, runCli } from '../../integrations/agent-cli.js';
import { processAlive } from '../../integrations/process-probe.js';
import type { AgentRunRow, RunOutcome } from '../../store/agent-runs-store.js';
import type { SessionRow } from '../../store/sessions-store.js';
import { adapterOf } from './providers.js';

/** Files given as context: at most this many, of at most this size each. */
export const MAX_CONTEXT_FILES = 20;
const MAX_CONTEXT_FILE_BYTES = 200_000;
/** How often a waiting call looks at its run. */
const POLL_MS = 100;

interface Live {
  controller: AbortController;
  /** The last thing the agent said or did, for progress. */
  activity: string;
  done: Promise<void>;
}

/**
 * Runs of other agent CLIs as sub-workers of a session. A run is a job: it is recorded queued,
 * runs when its conversation's previous call has ended and fewer than `agents.max_parallel` runs
 * are going, and ends succeeded, failed, cancelled or timed out; a caller waits for it a while and
 * then polls. Each conversation remembers the CLI conversation id it continues from (for claude,
 * every call forks a new one, so any earlier id is a point to go back to).
 */
export class AgentsService {
  private readonly live = new Map<string, Live>();
  /** Per conversation: the end of its last queued run (calls on one conversation run in order). */
  private readonly tails = new Map<string, Promise<void>>();
  private running = 0;
  private readonly slots: Array<() => void> = [];

  /** Runs left by a server process that is gone, recorded as lost: calls that read runs wait for it. */
  private readonly recovered: Promise<void>;

  constructor(private readonly app: AppContext) {
    this.recovered = this.recoverLost().catch((error: Error) => {
      this.app.log.error('agent.recover_failed', { message: error.message });
    });
  }

  /** Queues a run; its id. */
  async execute(
    session: SessionRow,
    input: {
      provider: AgentProvider;
      conversation: string;
      prompt: string;
      cwd?: string | undefined;
      files?: string[];
    },
  ): Promise<AgentRunRow> {
    await this.recovered;
    // Gemini keeps its sessions per working folder: a continued call runs where the conversation
    // ran (by default), and another folder is refused.
    const point =
      input.provider === 'gemini'
        ? await this.app.store.agentRuns.conversation(session.id, 'gemini', input.conversation)
        : null;
    const ranIn = point ? (await this.app.store.agentRuns.producedBy(point))?.cwd : undefined;
    const cwd = this.insideProject(session, input.cwd ?? ranIn);
    if (ranIn !== undefined && ranIn !== cwd)
      throw invalidInput(
        `cwd: gemini keeps a conversation's session in the folder it ran in (${ranIn}); this call asks for ${cwd}.`,
        'Leave cwd out (the conversation runs there), or name another conversation for another folder.',
      );
    const prompt =
      input.files && input.files.length > 0
        ? withFiles(input.prompt, cwd, session.worktree, input.files)
        : input.prompt;
    const { store } = this.app;
    const id = newId();
    await store.write(() =>
      store.agentRuns.insert({
        id,
        session_id: session.id,
        project_id: session.project_id,
        provider: input.provider,
        conversation: input.conversation,
        cwd,
        prompt,
        files: input.files && input.files.length > 0 ? JSON.stringify(input.files) : null,
        resumed_from: null,
        runner_pid: process.pid,
        runner_host: this.app.host,
        created_at: this.app.now(),
      }),
    );
    const key = `${session.id}\u0000${input.provider}\u0000${input.conversation}`;
    const controller = new AbortController();
    const live: Live = { controller, activity: 'queued', done: Promise.resolve() };
    const previous = this.tails.get(key) ?? Promise.resolve();
    live.done = previous
      .then(() => this.run(id, session.id, live))
      .catch((error: Error) => {
        this.app.log.error('agent.run_failed', { run: id, message: error.message });
      });
    this.tails.set(key, live.done);
    this.live.set(id, live);
    void live.done.finally(() => {
      this.live.delete(id);
      if (this.tails.get(key) === live.done) this.tails.delete(key);
    });
    this.app.log.info('agent.queued', {
      run: id,
      provider: input.provider,
      conversation: input.conversation,
    });
    return (await store.agentRuns.get(id))!;
  }

  async get(session: SessionRow, runId: string): Promise<AgentRunRow> {
    await this.recovered;
    const row = await this.app.store.agentRuns.get(runId);
    if (!row || row.project_id !== session.project_id)
      throw new CollabError('RUN_NOT_FOUND', `No run ${runId} in this project.`);
    return row;
  }

  /** Waits until the run has ended, `ms` have passed or `signal` aborts; `progress` hears what it does. */
  async waitFor(
    runId: string,
    ms: number,
    signal: AbortSignal | undefined,
    progress?: { everyMs: number; fn: (activity: string, waitedMs: number) => void },
  ): Promise<AgentRunRow> {
    await this.recovered;
    const started = Date.now();
    let lastTick = started;
    for (;;) {
      const row = (await this.app.store.agentRuns.get(runId))!;
      if (row.status !== 'queued' && row.status !== 'running') return row;
      const now = Date.now();
      if (now - started >= ms || signal?.aborted) return row;
      if (progress && now - lastTick >= progress.everyMs) {
        lastTick = now;
        progress.fn(this.live.get(runId)?.activity ?? row.status, now - started);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Cancels a run of this process that has not ended (its whole process group is killed). */
  async cancel(session: SessionRow, runId: string): Promise<AgentRunRow> {
    const row = await this.get(session, runId);
    if (row.session_id !== session.id)
      throw new CollabError(
        'NOT_OWNER',
        `Run ${runId} belongs to another session.`,
        'A session cancels only its own runs.',
      );
    const live = this.live.get(runId);
    if (live) live.controller.abort();
    else if (row.status === 'queued' || row.status === 'running')
      await this.end(runId, { status: 'lost', error: 'its server is gone' });
    return (await this.app.store.agentRuns.get(runId))!;
  }

  /** The CLI conversation id the next call of a conversation continues from (null: a new one). */
  async current(session: SessionRow, provider: AgentProvider, conversation: string): Promise<string | null> {
    return (await this.app.store.agentRuns.conversation(session.id, provider, conversation)) ?? null;
  }

  /** Continues a conversation from `point` (any id a run of it produced), or from scratch (null). */
  async setCurrent(
    session: SessionRow,
    provider: AgentProvider,
    conversation: string,
    point: string | null,
  ): Promise<void> {
    if (point !== null && !adapterOf(provider).canGoBack) {
      const latest = await this.current(session, provider, conversation);
      if (point !== latest)
        throw invalidInput(
          `${provider} continues a conversation only from its latest point (${latest ?? 'none yet'}): its resumes append to one thread, so an earlier point cannot be gone back to.`,
          'Use claude to go back to an earlier point, or reset_session to start over.',
        );
    }
    const { store } = this.app;
    await store.write(() =>
      store.agentRuns.setConversation(session.id, provider, conversation, point, this.app.now()),
    );
  }

  /** A page of the project's runs, newest first (`cursor`: the next_cursor of the page before). */
  async history(
    session: SessionRow,
    filter: {
      provider: AgentProvider | null;
      conversation: string | null;
      query: string | null;
      limit: number;
      cursor: string | undefined;
    },
  ): Promise<Page<AgentRunRow>> {
    await this.recovered;
    const rows = await this.app.store.agentRuns.list({
      projectId: session.project_id,
      provider: filter.provider,
      conversation: filter.conversation,
      match: filter.query ? searchWords(filter.query) : null,
      limit: filter.limit + 1,
      before:
        filter.cursor === undefined ? null : (decodeCursor(filter.cursor) as { at: number; id: string }),
    });
    return pageOf(rows, filter.limit, (r) => ({ at: r.created_at, id: r.id }));
  }

  /** Deletes the session's finished runs; how many. */
  async clear(session: SessionRow): Promise<number> {
    await this.recovered;
    const { store } = this.app;
    return store.write(() => store.agentRuns.deleteOwn(session.id));
  }

  /** The CLI found for a provider, its version, and the permission setting in force. */
  async test(provider: AgentProvider): Promise<{
    found: boolean;
    path: string | null;
    version: string | null;
    permission: string;
    tried: string[];
  }> {
    const adapter = adapterOf(provider);
    const { path, tried } = findCli(provider);
    let version: string | null = null;
    if (path) {
      const lines: string[] = [];
      await runCli({
        file: path,
        args: ['--version'],
        cwd: process.cwd(),
        input: '',
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
      permission: adapter.permission(this.app.config.agents),
      tried,
    };
  }

  private async run(id: string, sessionId: string, live: Live): Promise<void> {
    await this.slot();
    try {
      const row = (await this.app.store.agentRuns.get(id))!;
      if (live.controller.signal.aborted)
        return await this.end(id, { status: 'cancelled', error: 'cancelled before it started' });
      const adapter = adapterOf(row.provider);
      const { path, tried } = findCli(row.provider);
      if (!path)
        return await this.end(id, {
          status: 'failed',
          error: `The ${row.provider} CLI was not found (looked at: ${tried.join(', ')}). Install it, or set ${row.provider.toUpperCase()}_PATH.`,
        });
      const resume =
        (await this.app.store.agentRuns.conversation(sessionId, row.provider, row.conversation)) ?? null;
      await this.app.store.write(() => this.app.store.agentRuns.start(id, resume, this.app.now()));
      live.activity = `${row.provider} started`;
      const config = this.app.config.agents;
      let attempt = await this.attempt(path, resume, adapter.args(config, resume), row, live);
      // An empty result with an error subtype: the CLI's own hiccup; asked once more.
      if (
        attempt.outcome.status === 'failed' &&
        attempt.emptyErrorResult &&
        !live.controller.signal.aborted
      ) {
        this.app.log.info('agent.retry', { run: id });
        attempt = await this.attempt(path, resume, adapter.args(config, resume), row, live);
      }
      await this.end(id, attempt.outcome);
      const produced = attempt.outcome.produced;
      if (attempt.outcome.status === 'succeeded' && produced) {
        const { store } = this.app;
        await store.write(() =>
          store.agentRuns.setConversation(
            sessionId,
            row.provider,
            row.conversation,
            produced,
            this.app.now(),
          ),
        );
      }
    } finally {
      this.release();
    }
  }

  private async attempt(
    file: string,
    resume: string | null,
    args: string[],
    row: AgentRunRow,
    live: Live,
  ): Promise<{ outcome: Partial<RunOutcome> & { status: RunOutcome['status'] }; emptyErrorResult: boolean }> {
    const config = this.app.config.agents;
    const started = Date.now();
    let produced: string | null = null;
    let result: Extract<AgentEvent, { kind: 'result' }> | null = null;
    const texts: string[] = [];
    const errors: string[] = [];
    // What is kept of the output is bounded by agents.output_chars; a cut is reported.
    let kept = 0;
    let cut = false;
    const run = await runCli({
      file,
      args,
      cwd: row.cwd,
      input: row.prompt,
      timeoutMs: config.timeout_seconds * 1000,
      // A line carries at most the kept output, JSON-escaped, and its envelope.
      maxLineChars: config.output_chars * 4 + 65_536,
      signal: live.controller.signal,
      onLine: (line) => {
        for (const event of parseAgentLine(row.provider, line)) {
          if (event.kind === 'session') produced = event.id;
          else if (event.kind === 'text') {
            kept += event.text.length;
            if (kept <= config.output_chars) texts.push(event.text);
            else cut = true;
            live.activity = `${row.provider}: ${event.text.replace(/\s+/g, ' ').slice(0, 120)}`;
          } else if (event.kind === 'tool')
            live.activity = `${row.provider} uses ${event.name} ${event.detail}`.trim();
          else if (event.kind === 'result') result = event;
          else if (event.kind === 'error') errors.push(event.message);
        }
      },
    });
    const final = result as Extract<AgentEvent, { kind: 'result' }> | null;
    // claude's result carries its answer; codex's is its last message; gemini streams its answer in parts.
    const full =
      final?.text ||
      (row.provider === 'codex' ? (texts.at(-1) ?? '') : row.provider === 'gemini' ? texts.join('') : '');
    if (full.length > config.output_chars) cut = true;
    const text = full.slice(0, config.output_chars);
    const common = {
      produced,
      result: text || null,
      output_truncated: run.truncated || cut ? 1 : 0,
      turns: final?.turns ?? null,
      duration_ms: final?.durationMs ?? Date.now() - started,
      input_tokens: final?.inputTokens ?? null,
      output_tokens: final?.outputTokens ?? null,
      ...(await this.costOf(row, resume, final?.costUsd ?? null)),
    };
    if (run.cancelled)
      return { outcome: { ...common, status: 'cancelled', error: 'cancelled' }, emptyErrorResult: false };
    if (run.timedOut)
      return {
        outcome: {
          ...common,
          status: 'timed_out',
          error: `ended after ${config.timeout_seconds} s (agents.timeout_seconds)`,
        },
        emptyErrorResult: false,
      };
    const failed = run.code !== 0 || !final || final.isError || errors.length > 0;
    if (!failed) return { outcome: { ...common, status: 'succeeded', error: null }, emptyErrorResult: false };
    const why =
      errors.join('; ') ||
      (final?.isError ? `${row.provider} reported an error (${final.subtype ?? 'error'})` : '') ||
      `${row.provider} exited with ${run.code ?? 'a signal'}${run.stderr.trim() ? `: ${run.stderr.trim().slice(-500)}` : ''}`;
    return {
      outcome: { ...common, status: 'failed', error: why },
      emptyErrorResult:
        final?.isError === true && !final.text && final.subtype !== null && final.subtype !== 'success',
    };
  }

  /**
   * A run's own cost. claude reports the conversation's total so far: a continued run costs the
   * difference from the total of the run whose point it continued.
   */
  private async costOf(
    row: AgentRunRow,
    resumed: string | null,
    reported: number | null,
  ): Promise<{ cost_usd: number | null; cost_total_usd: number | null }> {
    if (reported === null || row.provider !== 'claude') return { cost_usd: reported, cost_total_usd: null };
    const before = resumed ? ((await this.app.store.agentRuns.producedBy(resumed))?.cost_total_usd ?? 0) : 0;
    return { cost_usd: Math.max(0, reported - before), cost_total_usd: reported };
  }

  private async end(
    id: string,
    outcome: Partial<RunOutcome> & { status: RunOutcome['status'] },
  ): Promise<void> {
    const { store } = this.app;
    await store.write(() =>
      store.agentRuns.finish(id, {
        produced: null,
        result: null,
        error: null,
        output_truncated: 0,
        cost_usd: null,
        cost_total_usd: null,
        input_tokens: null,
        output_tokens: null,
        turns: null,
        duration_ms: null,
        ...outcome,
        finished_at: this.app.now(),
      }),
    );
    this.app.log.info('agent.finished', { run: id, status: outcome.status });
  }

  /** Runs left queued or running by a server process that is gone are recorded as lost. */
  private async recoverLost(): Promise<void> {
    for (const row of await this.app.store.agentRuns.open()) {
      if (row.runner_host === this.app.host && row.runner_pid !== null && !processAlive(row.runner_pid, null))
        await this.end(row.id, { status: 'lost', error: 'the server running it stopped' });
    }
  }

  private slot(): Promise<void> {
    if (this.running < this.app.config.agents.max_parallel) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.slots.push(() => resolve()));
  }

  private release(): void {
    const next = this.slots.shift();
    if (next) next();
    else this.running--;
  }

  /** The run's folder: inside the session's project (the worktree when not given). */
  private insideProject(session: SessionRow, cwd: string | undefined): string {
    const folder = cwd === undefined ? session.worktree : resolve(session.worktree, cwd);
    const rel = relative(session.worktree, folder);
    if (rel.startsWith('..') || isAbsolute(rel))
      throw invalidInput(`cwd: ${cwd} is outside the project (${session.worktree}).`);
    try {
      if (!statSync(folder).isDirectory()) throw new Error('not a folder');
    } catch {
      throw invalidInput(`cwd: ${folder} is not a folder.`);
    }
    return folder;
  }
}

/**
 * The prompt with the files' contents before it, each fenced and named. Only files of the project
 * (`root`, symlinks followed) are read: a prompt cannot carry the rest of the machine to a CLI.
 */
function withFiles(prompt: string, cwd: string, root: string, files: string[]): string {
  if (files.length > MAX_CONTEXT_FILES) throw invalidInput(`file_paths: at most ${MAX_CONTEXT_FILES} files.`);
  const realRoot = realpathSync(root);
  const parts = files.map((file) => {
    let content: string;
    try {
      const path = realpathSync(resolve(cwd, file));
      const rel = relative(realRoot, path);
      if (rel.startsWith('..') || isAbsolute(rel))
        throw invalidInput(`file_paths: ${file} is outside the project.`);
      if (statSync(path).size > MAX_CONTEXT_FILE_BYTES)
        throw invalidInput(`file_paths: ${file} is over ${MAX_CONTEXT_FILE_BYTES / 1000} kB.`);
      content = readFileSync(path, 'utf8');
    } catch (error) {
      if (error instanceof CollabError) throw error;
      throw invalidInput(`file_paths: cannot read ${file} (${(error as Error).message}).`);
    }
    return `<file path="${file.replace(/"/g, "'")}">\n${content}\n</file>`;
  });
  return `${parts.join('\n\n')}\n\n${prompt}`;
}

/** A person's search words (at most 20): the store searches for each as it is (no operators from the input). */
function searchWords(query: string): string[] {
  return query.split(/\s+/).filter(Boolean).slice(0, 20);
}
