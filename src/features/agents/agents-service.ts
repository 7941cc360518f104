import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { AppContext } from '../../app/context.js';
import { type AgentEvent, type AgentProvider, parseAgentLine } from '../../core/agent-events.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { decodeCursor, type Page, pageOf } from '../../core/page.js';
import { endLeftGroup, findCli, runCli } from '../../integrations/agent-cli.js';
import { processAlive, processStartTime } from '../../integrations/process-probe.js';
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
    // claude and gemini keep their sessions per working folder: a continued call runs where its
    // conversation ran (by default), and another folder is refused.
    const ranIn = await this.conversationFolder(session, input.provider, input.conversation);
    const cwd = this.insideProject(session, input.cwd ?? ranIn);
    if (ranIn !== undefined && ranIn !== cwd)
      throw invalidInput(
        `cwd: ${input.provider} keeps a conversation's session in the folder it ran in (${ranIn}); this call asks for ${cwd}, where ${input.provider} would find no conversation to continue.`,
        'Leave cwd out (the conversation runs there), name another conversation for another folder, or reset_session to start this one over.',
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
        runner_start: processStartTime(process.pid),
        runner_host: this.app.host,
        created_at: this.app.now(),
      }),
    );
    const key = `${session.id}\u0000${input.provider}\u0000${input.conversation}`;
    const controller = new AbortController();
    const live: Live = { controller, activity: 'queued', done: Promise.resolve() };
    const previous = this.tails.get(key) ?? Promise.resolve();
    live.done = previous
      .then(() => this.run(id, session, live))
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
    else if (row.status === 'queued' || row.status === 'running') await this.endLeft(row);
    return (await this.app.store.agentRuns.get(runId))!;
  }

  /**
   * Ends every run of this process, as its server stops: each CLI's whole process group (SIGTERM,
   * then SIGKILL), each run recorded cancelled with `reason`.
   */
  async stopAll(reason: string): Promise<void> {
    const runs = [...this.live.values()];
    for (const live of runs) live.controller.abort(reason);
    await Promise.all(runs.map((live) => live.done));
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
      // Its latest point; or, for a session with none of its own yet (a restarted server without a
      // client session id), the latest point any session of the project reached.
      const own = await this.app.store.agentRuns.conversation(session.id, provider, conversation);
      const latest =
        own ??
        (await this.app.store.agentRuns.lastPoint(session.project_id, provider, conversation))?.produced;
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
      /** every session's runs of the project, or only this session's */
      allSessions: boolean;
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
      sessionId: filter.allSessions ? null : session.id,
      provider: filter.provider,
      conversation: filter.conversation,
      match: filter.query ? searchWords(filter.query) : null,
      limit: filter.limit + 1,
      before:
        filter.cursor === undefined ? null : (decodeCursor(filter.cursor) as { at: number; id: string }),
    });
    return pageOf(rows, filter.limit, (r) => ({ at: r.created_at, id: r.id }));
  }

  /** Deletes the session's finished runs: how many, and how many of its runs go on (kept). */
  async clear(session: SessionRow): Promise<{ deleted: number; kept_running: number }> {
    await this.recovered;
    const { store } = this.app;
    return store.write(async () => ({
      deleted: await store.agentRuns.deleteOwn(session.id),
      kept_running: await store.agentRuns.openCount(session.id),
    }));
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

  private async run(id: string, session: SessionRow, live: Live): Promise<void> {
    const sessionId = session.id;
    await this.slot();
    try {
      const row = (await this.app.store.agentRuns.get(id))!;
      if (live.controller.signal.aborted)
        return await this.end(id, {
          status: 'cancelled',
          error: `${cancelReason(live.controller.signal)} before it started`,
        });
      const adapter = adapterOf(row.provider);
      const { path, tried } = findCli(row.provider);
      if (!path)
        return await this.end(id, {
          status: 'failed',
          error: `The ${row.provider} CLI was not found (looked at: ${tried.join(', ')}). Install it, or set ${row.provider.toUpperCase()}_PATH.`,
        });
      const point = await this.app.store.agentRuns.conversation(sessionId, row.provider, row.conversation);
      const resume = point ?? null;
      const fresh = resume === null ? await this.whyFresh(session, row, point) : null;
      await this.app.store.write(() => this.app.store.agentRuns.start(id, resume, fresh, this.app.now()));
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
      runId: row.id,
      onSpawn: (pid) => {
        const { store } = this.app;
        store
          .write(() => store.agentRuns.setCliGroup(row.id, pid))
          .catch((error: Error) =>
            this.app.log.warn('agent.group_unrecorded', { run: row.id, message: error.message }),
          );
      },
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
      return {
        outcome: { ...common, status: 'cancelled', error: cancelReason(live.controller.signal) },
        emptyErrorResult: false,
      };
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
    // The CLI's own words: its error events, else the text of its failed result (how claude says
    // "Not logged in", a spent quota or a refused permission), else its exit and stderr.
    const said = final?.isError ? final.text.trim().slice(0, 2_000) : '';
    const why =
      errors.join('; ') ||
      (said ? `${row.provider} reported an error: ${said}` : '') ||
      (final?.isError ? `${row.provider} reported an error (${final.subtype ?? 'error'})` : '') ||
      `${row.provider} exited with ${run.code ?? 'a signal'}${run.stderr.trim() ? `: ${run.stderr.trim().slice(-500)}` : ''}`;
    return {
      outcome: { ...common, status: 'failed', error: why },
      // No word of why: a hiccup of the CLI's own, worth one more try.
      emptyErrorResult:
        final?.isError === true &&
        !final.text &&
        errors.length === 0 &&
        final.subtype !== null &&
        final.subtype !== 'success',
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

  /**
   * Runs left queued or running by a server process of this machine that is gone (killed before it
   * could end them): a CLI still running is ended with what it started, and the run recorded
   * cancelled; one that is gone is recorded lost.
   */
  private async recoverLost(): Promise<void> {
    for (const row of await this.app.store.agentRuns.open()) {
      if (
        row.runner_host === this.app.host &&
        row.runner_pid !== null &&
        !processAlive(row.runner_pid, row.runner_start)
      )
        await this.endLeft(row);
    }
  }

  /** Ends a run no live server of this machine runs: its CLI's group when it still runs, and the record. */
  private async endLeft(row: AgentRunRow): Promise<void> {
    const ended =
      row.cli_pgid !== null &&
      row.runner_host === this.app.host &&
      (await endLeftGroup(
        row.cli_pgid,
        row.id,
        this.app.now() - (row.started_at ?? row.created_at),
        this.app.config.agents.timeout_seconds * 1000,
      ));
    await this.end(
      row.id,
      ended
        ? {
            status: 'cancelled',
            error: `its server (pid ${row.runner_pid}) stopped without ending it; the ${row.provider} CLI and what it started were ended by the next server`,
          }
        : { status: 'lost', error: 'the server running it stopped' },
    );
  }

  /**
   * Why a run starts its conversation afresh: reset, the first call of that name, or — what a
   * caller would not guess — a session that cannot be the one that ran it before (a server that
   * restarted without a client session id is a new session), with how to continue it.
   */
  private async whyFresh(
    session: SessionRow,
    row: AgentRunRow,
    point: string | null | undefined,
  ): Promise<string> {
    if (point === null) return 'reset_session started this conversation over.';
    const before = await this.app.store.agentRuns.lastPoint(
      session.project_id,
      row.provider,
      row.conversation,
    );
    if (!before || before.session_id === session.id)
      return 'the first call of this conversation in this session.';
    const how = `set_current_session {provider: "${row.provider}", conversation: "${row.conversation}", session_id: "${before.produced}"} continues it`;
    return session.client_session_id === null
      ? `this session is new: its client gave no session id (CLAUDE_CODE_SESSION_ID or SESSION_COLLAB_SESSION_ID), so after a restart its server could not know it was the session that ran conversation "${row.conversation}" before (run ${before.id}); ${how}.`
      : `conversation "${row.conversation}" ran before in another session (run ${before.id}), not in this one; ${how}.`;
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

  /**
   * The folder a conversation of a CLI that keeps sessions per folder lives in: that of its run
   * still going (it makes the point the next call continues from), else of the run that made its
   * current point; undefined when it starts fresh, or the CLI does not care.
   */
  private async conversationFolder(
    session: SessionRow,
    provider: AgentProvider,
    conversation: string,
  ): Promise<string | undefined> {
    if (!adapterOf(provider).sessionsPerFolder) return undefined;
    const runs = this.app.store.agentRuns;
    const going = await runs.lastOpen(session.id, provider, conversation);
    if (going) return going.cwd;
    const point = await runs.conversation(session.id, provider, conversation);
    return point ? (await runs.producedBy(point))?.cwd : undefined;
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

/** Why a run was cancelled: the reason its abort was given (a server stopping), else a caller's cancel. */
function cancelReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? `cancelled: ${signal.reason}` : 'cancelled';
}

/** A person's search words (at most 20): the store searches for each as it is (no operators from the input). */
function searchWords(query: string): string[] {
  return query.split(/\s+/).filter(Boolean).slice(0, 20);
}
