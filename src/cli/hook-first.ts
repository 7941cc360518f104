/**
 * A hook's first step (its own small bundle, dist/hook.cjs): when the machine's server runs, it
 * answers the hook, and this is all the process loads; the whole hook (hook.ts, in dist/hot.cjs,
 * sixty times this size) took ~30 ms of a hook's start to load (docs/benchmarks.md). When no
 * server answers, or its answer needs more than printing (it could not decide; Cursor's own
 * shapes), the whole hook runs, handed what this step read and asked (`hook-server.ts`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveHome } from '../app/home.js';
import { VERSION } from '../core/version.js';
import { parseHookEvent, parseHookInput } from '../integrations/agent-hooks.js';
import { hookClientSessionId } from '../integrations/client-env.js';
import { clientProcess } from '../integrations/process-tree.js';
import { relaySocketPath, serverKey } from '../integrations/relay-address.js';
import {
  askServer,
  type HookHandoff,
  handOver,
  hookRequest,
  newHookCallId,
  readStdin,
  waitForWake,
} from './hook-server.js';

/** The launcher's way to run another bundle in this process (src/cli/launch.ts). */
const RUN_BUNDLE = Symbol.for('session-collab.run-bundle');

function whole(handoff: HookHandoff | null): void {
  if (handoff) handOver(handoff);
  const run = (globalThis as Record<symbol, unknown>)[RUN_BUNDLE] as ((name: string) => void) | undefined;
  if (run) run('hot');
  // Not started by the launcher (the bundle run by hand): the whole hook from beside this one.
  else require(join(__dirname, 'hot.cjs'));
}

async function first(eventName: string): Promise<void> {
  const startedAt = Date.now();
  // Unknown events, and input that is not even read, are the whole hook's to say.
  if (!parseHookEvent(eventName) || process.stdin.isTTY) return whole(null);
  let raw: string;
  try {
    raw = await readStdin();
  } catch (error) {
    return whole({ raw: '', startedAt, readError: (error as Error).message });
  }
  let identity: Parameters<typeof hookRequest>[1];
  let client: ReturnType<typeof clientProcess> = null;
  try {
    const input = parseHookInput(raw, process.cwd(), eventName);
    // Cursor runs Claude Code's hooks too, and takes answers of its own shapes: the whole hook's.
    if (input.format === 'cursor') return whole({ raw, startedAt });
    client = clientProcess();
    identity = { sessionId: hookClientSessionId(process.env, input.sessionId), process: client };
    if (eventName === 'wake') return wake(raw, identity);
  } catch {
    return whole({ raw, startedAt });
  }
  const call = { id: newHookCallId(), again: false };
  const { answer, lost } = await askServer(
    relaySocketPath(resolveHome().home, serverKey(VERSION)),
    eventName,
    hookRequest(raw, identity),
    call,
  );
  if (!answer || 'unchecked' in answer)
    return whole({ raw, startedAt, server: answer, client, call: { ...call, again: lost } });
  if (answer.output === null) process.exit(0);
  process.stdout.write(`${JSON.stringify(answer.output)}\n`, () => process.exit(0));
}

/**
 * Claude Code's wake hook (`asyncRewake`, started at each turn's end, in the background): waits on
 * the machine's server for news while the session is idle; with news, says it on stderr and exits
 * 2, which wakes the session with it. Nothing to say: exits 0. A client that runs without a person
 * (`claude -p`) runs this hook in the foreground and waits for it: it ends at once there.
 */
async function wake(raw: string, identity: Parameters<typeof hookRequest>[1]): Promise<void> {
  // Its arguments one by one (a prompt that says " -p " is one argument, not the flag).
  let words: string[] = [];
  try {
    if (identity.process) words = readFileSync(`/proc/${identity.process.pid}/cmdline`, 'utf8').split('\0');
  } catch {
    // Not Linux, or gone: a client that waits for its hooks is then not told apart.
  }
  if (words.includes('-p') || words.includes('--print')) process.exit(0);
  const news = await waitForWake(
    relaySocketPath(resolveHome().home, serverKey(VERSION)),
    hookRequest(raw, identity),
  );
  if (news === null) process.exit(0);
  process.stderr.write(`${news}\n`, () => process.exit(2));
}

void first(process.argv[3] ?? '');
