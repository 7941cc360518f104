/**
 * One attempt at a run: its CLI started in a process group of its own, its output read as events
 * (bounded by agents.output_chars), and what it said made into the run's outcome — the CLI's own
 * words when it failed.
 */
import type { AppContext } from '../../app/context.js';
import { type AgentEvent, parseAgentLine } from '../../core/agent-events.js';
import { runCli } from '../../integrations/agent-cli.js';
import type { AgentRunRow, RunOutcome } from '../../store/agent-runs-store.js';

/** What a run of this process has: its cancel, and the last thing its agent said or did. */
export interface LiveRun {
  /** The session that asked for it: its runs end when it does. */
  sessionId: string;
  /** The client's environment, the CLI's. */
  env: NodeJS.ProcessEnv;
  controller: AbortController;
  /** The last thing the agent said or did, for progress. */
  activity: string;
  done: Promise<void>;
}

export interface Attempt {
  outcome: Partial<RunOutcome> & { status: RunOutcome['status'] };
  /** Failed without a word of why: a hiccup of the CLI's own, worth one more try. */
  emptyErrorResult: boolean;
}

export async function attemptRun(
  app: AppContext,
  file: string,
  resume: string | null,
  args: string[],
  row: AgentRunRow,
  live: LiveRun,
): Promise<Attempt> {
  const config = app.config.agents;
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
    env: live.env,
    runId: row.id,
    onSpawn: (pid) => {
      const { store } = app;
      store
        .write(() => store.agentRuns.setCliGroup(row.id, pid))
        .catch((error: Error) =>
          app.log.warn('agent.group_unrecorded', { run: row.id, message: error.message }),
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
    ...(await costOf(app, row, resume, final?.costUsd ?? null)),
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
 * difference from the total at the point it continued (kept with the session's point).
 */
async function costOf(
  app: AppContext,
  row: AgentRunRow,
  resumed: string | null,
  reported: number | null,
): Promise<{ cost_usd: number | null; cost_total_usd: number | null }> {
  if (reported === null || row.provider !== 'claude') return { cost_usd: reported, cost_total_usd: null };
  const point = resumed
    ? await app.store.agentRuns.point(row.session_id, row.provider, row.conversation)
    : null;
  const before = point?.current === resumed ? (point.cost_total_usd ?? 0) : 0;
  return { cost_usd: Math.max(0, reported - before), cost_total_usd: reported };
}

/** Why a run was cancelled: the reason its abort was given (a server stopping), else a caller's cancel. */
export function cancelReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? `cancelled: ${signal.reason}` : 'cancelled';
}

/** Records how a run ended (once: a run already ended keeps its first ending). */
export async function endRun(
  app: AppContext,
  id: string,
  outcome: Partial<RunOutcome> & { status: RunOutcome['status'] },
  /** Written in the same transaction when this is the run's ending (the first). */
  withEnding?: () => Promise<void>,
): Promise<void> {
  const { store } = app;
  await store.write(async () => {
    const ended = await store.agentRuns.finish(id, {
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
      finished_at: app.now(),
    });
    if (ended) await withEnding?.();
  });
  app.log.info('agent.finished', { run: id, status: outcome.status });
}
