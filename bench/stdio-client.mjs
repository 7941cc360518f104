// A minimal MCP client over stdio, in bare JSON-RPC (no SDK: neither side pays a client's costs).
// Imports nothing of the product, so that a benchmark's client processes stay small.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * An MCP server over stdio spoken to in bare JSON-RPC (no SDK client: neither side pays a client's
 * costs): `call` resolves with the parsed result, its size and the round trip; `rssMb` is the
 * server's peak RSS.
 */
export function stdioServer(command, { cwd, env }) {
  const child = spawn(command[0], command.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdin.on('error', () => {});
  let buffer = '';
  const waiting = new Map();
  child.stdout.on('data', (d) => {
    buffer += d;
    let nl = buffer.indexOf('\n');
    while (nl !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        message = {};
      }
      waiting.get(message.id)?.({ message, bytes: line.length });
      waiting.delete(message.id);
      nl = buffer.indexOf('\n');
    }
  });
  const closed = new Promise((r) => child.once('exit', r));
  let exited = false;
  child.once('exit', () => {
    exited = true;
    for (const resolve of waiting.values()) resolve({ message: null, bytes: 0 });
  });
  let next = 1;
  // A server that has exited answers nothing: a request to it is answered at once with nothing.
  const request = (method, params) =>
    new Promise((resolve) => {
      if (exited) return resolve({ message: null, bytes: 0 });
      const id = next++;
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const ready = request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'probe', version: '1' },
  }).then(() => child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'));
  return {
    child,
    closed,
    /** Whether the server process has exited. */
    get exited() {
      return exited;
    },
    async call(name, args = {}) {
      await ready;
      const t = performance.now();
      const { message, bytes } = await request('tools/call', { name, arguments: args });
      return { ms: performance.now() - t, bytes, result: message?.result ?? null };
    },
    /** The `tools/list` result. */
    async list() {
      await ready;
      return (await request('tools/list', {})).message?.result ?? null;
    },
    /** CPU time the server has used so far (user + system), in ms. */
    cpuMs() {
      if (exited) return Number.NaN;
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    /** The server process's proportional set size (its own pages and its share of shared ones), MiB. */
    pssMb() {
      if (exited) return Number.NaN;
      const text = readFileSync(`/proc/${child.pid}/smaps_rollup`, 'utf8');
      return Number(/^Pss:\s+(\d+)/m.exec(text)[1]) / 1024;
    },
    /** Peak RSS (`peak`) or now, in MiB. */
    rssMb(which = 'peak') {
      if (exited) return Number.NaN;
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(new RegExp(`${which === 'peak' ? 'VmHWM' : 'VmRSS'}:\\s+(\\d+)`).exec(status)[1]) / 1024;
    },
    close() {
      child.stdin.end();
      return closed;
    },
  };
}
