/**
 * The event streams of the agent CLIs a session delegates to, read tolerantly: each line of a
 * CLI's JSON output becomes one of a few kinds; a line that is not JSON, or an event this code
 * does not know, passes through as `other` (a newer CLI adds events; nothing breaks).
 */

export type AgentProvider = 'claude' | 'codex' | 'gemini';
export const AGENT_PROVIDERS: readonly AgentProvider[] = ['claude', 'codex', 'gemini'];

export type AgentEvent =
  /** The CLI's conversation id: the point this run produced (claude, gemini) or the thread (codex). */
  | { kind: 'session'; id: string }
  /** Something the agent said along the way. */
  | { kind: 'text'; text: string }
  /** A tool the agent used (a command, an edit). */
  | { kind: 'tool'; name: string; detail: string }
  /** The run's end, with what the CLI reports of it. */
  | {
      kind: 'result';
      text: string;
      isError: boolean;
      subtype: string | null;
      turns: number | null;
      durationMs: number | null;
      costUsd: number | null;
      inputTokens: number | null;
      outputTokens: number | null;
    }
  | { kind: 'error'; message: string }
  | { kind: 'other' };

type Json = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const obj = (v: unknown): Json | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;

/** One line of a CLI's output as events (a claude assistant message may say and do several things). */
export function parseAgentLine(provider: AgentProvider, line: string): AgentEvent[] {
  let event: Json | null;
  try {
    event = obj(JSON.parse(line));
  } catch {
    return [{ kind: 'other' }];
  }
  if (!event) return [{ kind: 'other' }];
  switch (provider) {
    case 'claude':
      return claudeEvents(event);
    case 'codex':
      return codexEvents(event);
    case 'gemini':
      return geminiEvents(event);
  }
}

/** `claude -p --output-format stream-json --verbose`: system/init, assistant, user, result. */
function claudeEvents(e: Json): AgentEvent[] {
  const out: AgentEvent[] = [];
  const session = str(e.session_id);
  if (e.type === 'system' && e.subtype === 'init' && session) out.push({ kind: 'session', id: session });
  if (e.type === 'assistant') {
    const content = obj(e.message)?.content;
    for (const part of Array.isArray(content) ? content : []) {
      const p = obj(part);
      if (p?.type === 'text' && str(p.text)) out.push({ kind: 'text', text: p.text as string });
      if (p?.type === 'tool_use' && str(p.name))
        out.push({ kind: 'tool', name: p.name as string, detail: toolDetail(obj(p.input)) });
    }
  }
  if (e.type === 'result') {
    if (session) out.push({ kind: 'session', id: session });
    // A run that could not start says why in `errors` (a resume that finds no conversation).
    for (const message of Array.isArray(e.errors) ? e.errors : [])
      if (str(message)) out.push({ kind: 'error', message: message as string });
    const usage = obj(e.usage);
    out.push({
      kind: 'result',
      text: str(e.result) ?? '',
      isError: e.is_error === true,
      subtype: str(e.subtype),
      turns: num(e.num_turns),
      durationMs: num(e.duration_ms),
      costUsd: num(e.total_cost_usd),
      inputTokens: num(usage?.input_tokens),
      outputTokens: num(usage?.output_tokens),
    });
  }
  return out.length > 0 ? out : [{ kind: 'other' }];
}

/** `codex exec --json`: thread.started, item.* (agent_message, command_execution, file_change), turn.completed/failed, error. */
function codexEvents(e: Json): AgentEvent[] {
  const type = str(e.type);
  if (type === 'thread.started' && str(e.thread_id)) return [{ kind: 'session', id: e.thread_id as string }];
  if (type === 'item.completed' || type === 'item.started') {
    const item = obj(e.item);
    if (type === 'item.completed' && item?.type === 'agent_message' && str(item.text))
      return [{ kind: 'text', text: item.text as string }];
    if (type === 'item.started' && item?.type === 'command_execution')
      return [{ kind: 'tool', name: 'command', detail: str(item.command) ?? '' }];
    if (type === 'item.completed' && item?.type === 'file_change') {
      const changes = Array.isArray(item.changes) ? item.changes : [];
      return [
        {
          kind: 'tool',
          name: 'file_change',
          detail: changes
            .map((c) => str(obj(c)?.path))
            .filter(Boolean)
            .join(', '),
        },
      ];
    }
  }
  if (type === 'turn.completed') {
    const usage = obj(e.usage);
    return [
      {
        kind: 'result',
        text: '',
        isError: false,
        subtype: 'success',
        turns: 1,
        durationMs: null,
        costUsd: null,
        inputTokens: num(usage?.input_tokens),
        outputTokens: num(usage?.output_tokens),
      },
    ];
  }
  if (type === 'turn.failed')
    return [{ kind: 'error', message: str(obj(e.error)?.message) ?? 'the turn failed' }];
  if (type === 'error') return [{ kind: 'error', message: str(e.message) ?? 'error' }];
  return [{ kind: 'other' }];
}

/** `gemini -p … -o stream-json`: init, message, tool_use, tool_result, result, error. */
function geminiEvents(e: Json): AgentEvent[] {
  const type = str(e.type);
  if (type === 'init' && str(e.session_id)) return [{ kind: 'session', id: e.session_id as string }];
  if (type === 'message' && e.role === 'assistant' && str(e.content))
    return [{ kind: 'text', text: e.content as string }];
  if (type === 'tool_use' && str(e.tool_name))
    return [{ kind: 'tool', name: e.tool_name as string, detail: toolDetail(obj(e.parameters)) }];
  if (type === 'result') {
    const stats = obj(e.stats);
    const failed = e.status === 'error';
    return [
      {
        kind: 'result',
        // A failed run says why in its result's error.
        text: failed ? (str(obj(e.error)?.message) ?? '') : '',
        isError: failed,
        subtype: str(e.status),
        turns: num(stats?.tool_calls),
        durationMs: num(stats?.duration_ms),
        costUsd: null,
        inputTokens: num(stats?.input_tokens),
        outputTokens: num(stats?.output_tokens),
      },
    ];
  }
  if (type === 'error') return [{ kind: 'error', message: str(e.message) ?? 'error' }];
  return [{ kind: 'other' }];
}

/** What a tool use is about, in a few words: its file or command. */
function toolDetail(input: Json | null): string {
  if (!input) return '';
  const value = input.file_path ?? input.path ?? input.command ?? input.pattern ?? input.url;
  return typeof value === 'string' ? value.slice(0, 200) : '';
}
