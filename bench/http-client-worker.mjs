// One client of the hub benchmark, in its own process as a real client is: a minimal Streamable
// HTTP client (fetch, no SDK) that opens an MCP session, waits for the common start of the warm-up
// (`WARM_MS` before `start`), then loops claim → check → release until the deadline, timing every
// call; prints JSON: the calls from `start` on. `mode` 'echo' sends the same requests, headers
// included, to the floor (bench/http-echo-server.mjs), whose answer is the request itself.
import { WARM_MS } from './warm-up.mjs';

const [url, repo, index, start, deadline, mode] = process.argv.slice(2);
const echo = mode === 'echo';
/** What the floor's release names, since its claim answers with no claim of its own. */
const ECHO_CLAIM_ID = '00000000-0000-4000-8000-000000000000';
let sessionId = null;
let next = 1;

async function post(message) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-collab-project': repo,
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(message),
  });
  sessionId ??= response.headers.get('mcp-session-id');
  const text = await response.text();
  if (!('id' in message)) return null;
  if (response.status !== 200) return { error: `HTTP ${response.status}: ${text.slice(0, 80)}` };
  const data = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .find((l) => l.startsWith('data: {'))
        ?.slice(6);
  return data ? JSON.parse(data) : { error: 'no answer' };
}

const call = (name, args) =>
  post({ jsonrpc: '2.0', id: next++, method: 'tools/call', params: { name, arguments: args } });

await post({
  jsonrpc: '2.0',
  id: next++,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: `bench-${index}`, version: '1' },
  },
});
await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
await call('collab_check', { files: ['warm-up.ts'] });
while (Date.now() < Number(start) - WARM_MS) await new Promise((r) => setTimeout(r, 1));

/** Cycles in all (they name the files), and those from `start` on. */
let loops = 0;
let cycles = 0;
let counting = false;
const errors = {};
const ids = [];
const latencies = [];
const timed = async (name, args) => {
  const t = performance.now();
  const r = await call(name, args);
  if (counting) latencies.push(performance.now() - t);
  const e = r.error ?? (r.result?.isError ? (r.result.structuredContent?.error?.code ?? 'error') : null);
  if (e) errors[String(e).slice(0, 80)] = (errors[String(e).slice(0, 80)] ?? 0) + 1;
  if (e) return null;
  return echo ? { claim_id: ECHO_CLAIM_ID } : r.result.structuredContent;
};
while (Date.now() < Number(deadline)) {
  counting ||= Date.now() >= Number(start);
  const claimed = await timed('collab_claim', {
    files: [`shared/${loops % 7}.ts`, `own/${index}/${loops}.ts`],
    intent: 'bench',
  });
  if (!claimed) continue;
  if (!echo) ids.push(claimed.claim_id);
  await timed('collab_check', { files: [`shared/${(loops + 3) % 7}.ts`] });
  await timed('collab_release', { claim_id: claimed.claim_id, status: 'completed' });
  loops++;
  if (counting) cycles++;
}
process.stdout.write(JSON.stringify({ cycles, errors, ids, latencies }));
