/**
 * How a hook process reaches the server that answers it (the machine's, over its socket; or a hub
 * replica of this machine, over loopback), and its input: shared by the hook's first step
 * (`hook-first.ts`, its own small bundle) and the whole hook (`hook.ts`, in dist/hot.cjs), which
 * the first step hands over to, with what it already read and asked.
 */
import { createRequire } from 'node:module';
import { createConnection } from 'node:net';
import { newId } from '../core/ids.js';
import type { HookAnswer } from '../features/enforcement/hook-answers.js';
import { HOOK_CALL_HEADERS, type HookCall } from '../integrations/hook-call.js';
import type { ProcessInfo } from '../integrations/process-tree.js';
import { useSystemRandom } from '../integrations/random-bytes.js';

/** How long the server or hub on this machine has to answer before this process decides itself. */
export const HUB_TIMEOUT_MS = 2000;
const MAX_INPUT_BYTES = 8 * 1024 * 1024;
/** How long a hook waits for its input to end: within its whole budget (4 s, hook.ts), with time to say so. */
const STDIN_WAIT_MS = 3_000;

/**
 * What the hook's first step hands the whole hook: the input it read, when it began, and, when it
 * asked the machine's server, its answer (null: none answered).
 */
export interface HookHandoff {
  raw: string;
  startedAt: number;
  server?: HookAnswer | null;
  /** The call it asked as: `again` when the server took it and never answered (`ServerReply.lost`). */
  call?: HookCall;
  /** The client's process, when the first step found it (null: none found): not looked for twice. */
  client?: ProcessInfo | null;
  /** Why the input could not be read (the whole hook says so, as if it had read it). */
  readError?: string;
}

/** The two bundles share no module: the handoff goes through a global, by a registered symbol. */
const HANDOFF = Symbol.for('session-collab.hook-handoff');

export function handOver(handoff: HookHandoff): void {
  (globalThis as Record<symbol, unknown>)[HANDOFF] = handoff;
}

/** What the first step handed over, once (undefined when the whole hook runs first). */
export function takeHandoff(): HookHandoff | undefined {
  const g = globalThis as Record<symbol, unknown>;
  const handoff = g[HANDOFF] as HookHandoff | undefined;
  delete g[HANDOFF];
  return handoff;
}

/** What a hook hands the machine's server or a hub: its client's input, its folder and its client. */
export function hookRequest(
  raw: string,
  identity: { sessionId: string | null; process: { pid: number; start: string | null } | null },
): string {
  return JSON.stringify({
    input: raw,
    cwd: process.cwd(),
    identity: {
      sessionId: identity.sessionId,
      pid: identity.process?.pid ?? null,
      start: identity.process?.start ?? null,
    },
  });
}

/**
 * An id for one ask of this hook process, the same each time it asks: 122 random bits from the
 * system's random device (a UUID). A hub keeps what an ask did under its id alone, and answers an
 * ask sent again from that record: nobody else may be able to name it (another agent's token
 * holder, guessing a pid, a start time and a few random characters).
 */
export function newHookCallId(): string {
  useSystemRandom();
  return newId();
}

/** What the machine's server made of a hook's ask. */
export interface ServerReply {
  /** Its answer; null when none answers. */
  answer: HookAnswer | null;
  /**
   * It took the ask and gave no answer (it died, failed, or took past the timeout): it may have
   * done part of it, recorded under the ask's id. Whoever runs the ask next runs it as that call.
   */
  lost: boolean;
}

/** The machine server's answer to this hook event (over its socket), asked as `call`. */
export function askServer(
  path: string,
  event: string,
  request: string,
  call: HookCall,
): Promise<ServerReply> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    let text = '';
    let sent = false;
    socket.setTimeout(HUB_TIMEOUT_MS, () => socket.destroy());
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      text += d;
    });
    socket.once('close', () => {
      let answer: HookAnswer | null = null;
      try {
        answer = (JSON.parse(text) as { answer?: HookAnswer }).answer ?? null;
      } catch {
        // no answer, or half of one
      }
      resolve({ answer, lost: answer === null && sent });
    });
    socket.on('error', () => {});
    const line = `{"hook":1,"event":${JSON.stringify(event)},"call":${JSON.stringify(call)},"request":${request}}\n`;
    socket.write(line, (error) => {
      sent = !error;
    });
  });
}

/**
 * A wake hook's wait on the machine's server: the news that wakes its session, or null (none: the
 * session acted or ended, the watch ran its time, or no server runs here). A server that dies
 * meanwhile is asked again once its successor listens (within a few seconds), under the same id:
 * news the dead one delivered and never sent is answered from its record.
 */
export async function waitForWake(path: string, request: string): Promise<string | null> {
  const id = newHookCallId();
  for (let attempt = 0; ; attempt++) {
    const reply = await new Promise<{ connected: boolean; text: string }>((resolve) => {
      const socket = createConnection(path);
      let connected = false;
      let text = '';
      socket.setEncoding('utf8');
      socket.once('connect', () => {
        connected = true;
      });
      socket.on('data', (d: string) => {
        text += d;
      });
      socket.once('close', () => resolve({ connected, text }));
      socket.on('error', () => {});
      const call = JSON.stringify({ id, again: attempt > 0 });
      socket.write(`{"hook":1,"event":"wake","call":${call},"request":${request}}\n`);
    });
    try {
      const answer = JSON.parse(reply.text) as { wake?: unknown };
      return typeof answer.wake === 'string' ? answer.wake : null;
    } catch {
      // No answer: the server died while it waited (or none runs). Its successor, if one comes.
      if (attempt >= 10 || (!reply.connected && attempt === 0)) return null;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}

/** Statuses a hub refuses a hook's ask with before it reads it. */
const REFUSED_UNREAD = new Set([401, 403, 413]);

/** The hub's answer to this hook event (`/hook/<event>`, over loopback), asked as `call`. */
export function askHub(url: string, event: string, body: string, call: HookCall): Promise<ServerReply> {
  const token = process.env.SESSION_COLLAB_TOKEN?.trim();
  // Loaded here: only a hook in team mode asks a hub, and node:http costs a hook ~2 ms.
  const { request: httpRequest } = createRequire(__filename)('node:http') as typeof import('node:http');
  return new Promise((resolve) => {
    let sent = false;
    // Refused before it was read (a token, this machine, its size), the hub did nothing; otherwise,
    // with no answer, it may have done part (a failure after a commit is a 400 too).
    const none = (status: number | null) =>
      resolve({ answer: null, lost: sent && !REFUSED_UNREAD.has(status ?? 0) });
    const req = httpRequest(
      `${url}/hook/${event}`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          [HOOK_CALL_HEADERS.id]: call.id,
          [HOOK_CALL_HEADERS.again]: call.again ? '1' : '0',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        timeout: HUB_TIMEOUT_MS,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => {
          let answer: HookAnswer | null = null;
          try {
            if (res.statusCode === 200) answer = (JSON.parse(text) as { answer: HookAnswer }).answer ?? null;
          } catch {
            // half an answer
          }
          if (answer) resolve({ answer, lost: false });
          else none(res.statusCode === 200 ? null : (res.statusCode ?? null));
        });
        res.on('error', () => none(null));
      },
    );
    req.on('finish', () => {
      sent = true;
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => none(null));
    req.end(body);
  });
}

export function readStdin(withinMs = STDIN_WAIT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    if (process.stdin.isTTY) return reject(new Error('no hook input on stdin (it is a terminal)'));
    let size = 0;
    const chunks: Buffer[] = [];
    // A client that never ends the hook's input would hold the hook, and its tool call, for ever.
    const late = setTimeout(() => {
      reject(new Error(`the hook input did not end within ${withinMs / 1000} s`));
      process.stdin.destroy();
    }, withinMs);
    late.unref();
    const fail = (error: Error) => {
      clearTimeout(late);
      reject(error);
    };
    process.stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_INPUT_BYTES) {
        fail(new Error('hook input too large'));
        process.stdin.destroy();
        return;
      }
      chunks.push(chunk);
    });
    process.stdin.on('end', () => {
      clearTimeout(late);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    process.stdin.on('error', fail);
  });
}
