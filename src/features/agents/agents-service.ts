import type { AppContext } from '../../app/context.js';
import type { AgentProvider } from '../../core/agent-events.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { decodeCursor, type Page, pageOf } from '../../core/page.js';
import { findCli } from '../../integrations/agent-cli.js';
import { processStartTime } from '../../integrations/process-probe.js';
import type { AgentRunRow } from '../../store/agent-runs-store.js';
import { unrecorded } from '../../store/call-records-store.js';
import type { SessionRow } from '../../store/sessions-store.js';
import { attemptRun, cancelReason, endRun, type LiveRun } from './cli-attempt.js';
import { checkCli } from './cli-check.js';
import { conversationFolder, setPoint, whyFresh } from './conversation-rules.js';
import { endLeft, endLeftRuns, runnerLives } from './left-runs.js';
import { adapterOf } from './providers.js';
import { cliSessionId, insideProject, searchWords, withFiles } from './run-inputs.js';

/** How long a stopping server waits for its runs to end (their SIGTERM grace, then SIGKILL). */
const STOP_WAIT_MS = 4_000;
/** How often a waiting call looks at its run. */
const POLL_MS = 100;

/** Runs one session may have queued or running at once (each holds its prompt, up to a megabyte). */
export const MAX_GOING_PER_SESSION = 20;

/**
 * Runs of other agent CLIs as sub-workers of a session. A run is a job: it is recorded queued,
 * runs when its conversation's previous call has ended and fewer than `agents.max_parallel` runs
 * are going, and ends succeeded, failed, cancelled or timed out; a caller waits for it a while and
 * then polls. Each conversation remembers the CLI conversation id it continues from (for claude,
 * every call forks a new one, so any earlier id is a point to go back to).
 */
export class AgentsService {
  private readonly live = new Map<string, LiveRun>();
  /** Per conversation: the end of its last queued run (calls on one conversation run in order). */
  private readonly tails = new Map<string, Promise<void>>();
  private running = 0;
  private readonly slots: Array<() => void> = [];
  /** Set once the server stops: no run is started any more. */
  private stopping: string | null = null;

  /** Runs a killed server left, ended (left-runs.ts): calls that read runs wait for it. */
  private readonly recovered: Promise<void>;

  constructor(private readonly app: AppContext) {
    this.recovered = unrecorded(() => endLeftRuns(this.app)).catch((error: Error) => {
      this.app.log.error('agent.recover_failed', { message: error.message });
    });
  }

  /** Ends the runs a killed server of this machine left queued or running (`endLeftRuns`). */
  async endLeft(): Promise<void> {
    await this.recovered;
    await unrecorded(() => endLeftRuns(this.app));
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
      /** The client's environment: the CLI is looked for and run in it. */
      env?: NodeJS.ProcessEnv;
      /** The client may be on another machine (see `ConnectionOrigin.remote`): nothing is run for it here. */
      remote?: boolean;
    },
  ): Promise<AgentRunRow> {
    await this.recovered;
    if (input.remote)
      throw new CollabError(
        'NOT_ALLOWED',
        "A run starts the agent's CLI on the hub's machine, in the session's folder there, and reads its files; this client connects with a token (or from elsewhere), so its folder is not one of this machine's.",
        "Delegate from a client on the hub's machine (connected without a token, over loopback), or run the agent CLI yourself.",
      );
    if (this.stopping !== null)
      throw new CollabError(
        'INVALID_STATE',
        `This server is stopping (${this.stopping}): no run is started any more.`,
        'Call again once your client has reconnected.',
      );
    // claude and gemini keep their sessions per working folder: a continued call runs where its
    // conversation ran (by default), and another folder is refused.
    const ranIn = await conversationFolder(this.app, session, input.provider, input.conversation);
    const cwd = insideProject(session, input.cwd ?? ranIn);
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
    // Its id made inside the write: a call sent again gets this very run back (not a second one).
    const id = await store.write(async () => {
      // Counted inside the write: runs asked for at once cannot pass it together.
      if ((await store.agentRuns.going(session.id)) >= MAX_GOING_PER_SESSION)
        throw invalidInput(
          `this session already has ${MAX_GOING_PER_SESSION} runs queued or running.`,
          'Wait for them (execution_status), or cancel those that no longer matter (cancel_execution).',
        );
      const id = newId();
      await store.agentRuns.insert({
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
      });
      return id;
    });
    const key = `${session.id}\u0000${input.provider}\u0000${input.conversation}`;
    const controller = new AbortController();
    const live: LiveRun = {
      sessionId: session.id,
      env: input.env ?? process.env,
      controller,
      activity: 'queued',
      done: Promise.resolve(),
    };
    const previous = this.tails.get(key) ?? Promise.resolve();
    // It waits for the conversation's previous call, unless it is cancelled meanwhile.
    live.done = unrecorded(() =>
      untilAborted(previous, controller.signal).then(() => this.run(id, session, live)),
    ).catch((error: Error) => {
      this.app.log.error('agent.run_failed', { run: id, message: error.message });
    });
    // The next call waits for this one and the one before (a cancelled call ends early).
    const tail = Promise.all([previous, live.done]).then(() => {});
    this.tails.set(key, tail);
    this.live.set(id, live);
    void live.done.finally(() => {
      this.live.delete(id);
    });
    void tail.finally(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
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
    else if (row.status === 'queued' || row.status === 'running') {
      if (runnerLives(this.app, row))
        throw new CollabError(
          'INVALID_STATE',
          `Run ${runId} is run by another server process (pid ${row.runner_pid} on ${row.runner_host}), which is alive.`,
          'Cancel it through the connection that started it, or wait for it (execution_status).',
        );
      await endLeft(this.app, row);
    }
    return (await this.app.store.agentRuns.get(runId))!;
  }

  /**
   * Ends every run of this process, as its server stops: each CLI's whole process group (SIGTERM,
   * then SIGKILL), each run recorded cancelled with `reason`.
   */
  async stopAll(reason: string): Promise<void> {
    this.stopping = reason;
    await this.end([...this.live.entries()], reason);
  }

  /**
   * Ends the runs one session asked for, as its client goes away from a server that serves others
   * too (the machine's server): as `stopAll` does for a server's own.
   */
  async stopFor(sessionId: string, reason: string): Promise<void> {
    await this.end(
      [...this.live.entries()].filter(([, live]) => live.sessionId === sessionId),
      reason,
    );
  }

  private async end(runs: Array<[string, LiveRun]>, reason: string): Promise<void> {
    if (runs.length === 0) return;
    for (const [, live] of runs) live.controller.abort(reason);
    // Each group gets its SIGTERM grace, then SIGKILL; a run that still has not ended by then (a
    // loaded machine, a process that will not die) does not hold the server's exit up: it is
    // recorded cancelled here (a run's first ending is the one kept).
    await Promise.race([
      Promise.all(runs.map(([, live]) => live.done)),
      new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref()),
    ]);
    for (const [id] of runs)
      if (this.live.has(id))
        await endRun(this.app, id, {
          status: 'cancelled',
          error: `cancelled: ${reason}`,
        });
  }

  /** The CLI conversation id the next call of a conversation continues from (null: a new one). */
  async current(session: SessionRow, provider: AgentProvider, conversation: string): Promise<string | null> {
    return (await this.app.store.agentRuns.conversation(session.id, provider, conversation)) ?? null;
  }

  /** The CLI found for a provider, its version, and the permission setting in force. */
  test(provider: AgentProvider, env: NodeJS.ProcessEnv = process.env): ReturnType<typeof checkCli> {
    return checkCli(this.app.config.agents, provider, env);
  }

  /** Continues a conversation from `point` (any id a run of it produced), or from scratch (null). */
  setCurrent(
    session: SessionRow,
    provider: AgentProvider,
    conversation: string,
    point: string | null,
  ): Promise<void> {
    return setPoint(this.app, session, provider, conversation, point);
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

  /**
   * Deletes the session's finished runs (how many), and says how many go on. Its conversations
   * continue from their points, which are not history (agent_conversations).
   */
  async clear(session: SessionRow): Promise<{ deleted: number; kept_running: number }> {
    await this.recovered;
    const { store } = this.app;
    return store.write(async () => {
      const deleted = await store.agentRuns.deleteOwn(session.id);
      return { deleted, kept_running: await store.agentRuns.going(session.id) };
    });
  }

  private async run(id: string, session: SessionRow, live: LiveRun): Promise<void> {
    const sessionId = session.id;
    if (!(await this.slot(live.controller.signal)))
      return await endRun(this.app, id, {
        status: 'cancelled',
        error: `${cancelReason(live.controller.signal)} before it started`,
      });
    try {
      const row = (await this.app.store.agentRuns.get(id))!;
      if (live.controller.signal.aborted)
        return await endRun(this.app, id, {
          status: 'cancelled',
          error: `${cancelReason(live.controller.signal)} before it started`,
        });
      const adapter = adapterOf(row.provider);
      const { path, tried } = findCli(row.provider, live.env);
      if (!path)
        return await endRun(this.app, id, {
          status: 'failed',
          error: `The ${row.provider} CLI was not found (looked at: ${tried.join(', ')}). Install it, or set ${row.provider.toUpperCase()}_PATH.`,
        });
      const point = await this.app.store.agentRuns.conversation(sessionId, row.provider, row.conversation);
      // Checked where it goes on the command line too: a point kept by an older version is not.
      const resume = point === undefined || point === null ? null : cliSessionId(point);
      const fresh = resume === null ? await whyFresh(this.app, session, row, point) : null;
      const started = await this.app.store.write(() =>
        this.app.store.agentRuns.start(id, resume, fresh, this.app.now()),
      );
      if (!started) return; // ended meanwhile (cancelled by another process): nothing to run
      live.activity = `${row.provider} started`;
      const config = this.app.config.agents;
      let attempt = await attemptRun(this.app, path, resume, adapter.args(config, resume), row, live);
      // An empty result with an error subtype: the CLI's own hiccup; asked once more.
      if (
        attempt.outcome.status === 'failed' &&
        attempt.emptyErrorResult &&
        !live.controller.signal.aborted
      ) {
        this.app.log.info('agent.retry', { run: id });
        attempt = await attemptRun(this.app, path, resume, adapter.args(config, resume), row, live);
      }
      // The conversation's point moves with the run's ending, in one transaction: once a waiting
      // call sees the run ended, its point is there (a reset_session sent right after the answer
      // was otherwise overwritten by the point written after it).
      const produced = attempt.outcome.produced;
      await endRun(this.app, id, attempt.outcome, async () => {
        if (attempt.outcome.status === 'succeeded' && produced)
          await this.app.store.agentRuns.setConversation(
            sessionId,
            row.provider,
            row.conversation,
            produced,
            { cwd: row.cwd, cost_total_usd: attempt.outcome.cost_total_usd ?? null },
            this.app.now(),
          );
      });
    } catch (error) {
      // A run that could not start or go on (the CLI would not spawn, the store failed) is failed,
      // never left running for no process (a run's first ending is the one kept).
      await endRun(this.app, id, {
        status: 'failed',
        error: `The run could not go on: ${(error as Error).message}`,
      }).catch(() => {});
      throw error;
    } finally {
      this.release();
    }
  }

  /** Waits for one of agents.max_parallel slots: true once it has one, false when `signal` aborts first. */
  private slot(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.running < this.app.config.agents.max_parallel) {
      this.running++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const take = () => {
        signal.removeEventListener('abort', give);
        resolve(true);
      };
      const give = () => {
        const at = this.slots.indexOf(take);
        if (at !== -1) this.slots.splice(at, 1);
        resolve(false);
      };
      this.slots.push(take);
      signal.addEventListener('abort', give, { once: true });
    });
  }

  private release(): void {
    const next = this.slots.shift();
    if (next) next();
    else this.running--;
  }
}

/** Resolves when `promise` does, or at once when `signal` aborts (it never rejects). */
function untilAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    promise.then(done, done);
  });
}
