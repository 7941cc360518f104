import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where this machine's server (the hub process) takes relayed connections: a Unix socket in the
 * home folder (a named pipe on Windows). Each build has its own, so a server of an older install
 * never answers a newer relay: it serves the relays it has until they go, then exits when idle.
 *
 * The wire: the relay's first line is its hello (`RelayHello`), the server's first line its answer
 * (`RelayWelcome`); then newline-delimited JSON-RPC both ways, as MCP's stdio transport.
 */
export interface RelayHello {
  relay: 1;
  /** The relay process: the client's session lives by it, as it lived by `serve` before. */
  pid: number;
  /** The folder the client started the relay in. */
  cwd: string;
  /** The client's own session id (SESSION_COLLAB_SESSION_ID, CLAUDE_CODE_SESSION_ID), if any. */
  client_session_id: string | null;
  /** `--session-name`, else SESSION_COLLAB_SESSION_NAME. */
  name: string | null;
  /** `--toolsets`, split (null: the configured ones). */
  toolsets: string[] | null;
  read_only: boolean;
  /**
   * The client's environment (the relay's): what runs on the client's behalf (agent CLIs) gets it,
   * as it got a stdio server's.
   */
  env: Record<string, string>;
}

/**
 * The last line a relay sends before it ends its side, saying why (a JSON-RPC notification, which
 * the server ignores): `{"jsonrpc":"2.0","method":RELAY_ENDING,"params":{"reason":"SIGTERM"}}`.
 */
export const RELAY_ENDING = 'notifications/session-collab/relay-ending';

/**
 * The `_meta` key a relay sets (`true`) on a tool call it sends again after its server died: the
 * writes the call already made are answered from their records (store/call-records-store.ts).
 */
export const SENT_AGAIN = 'session-collab/again';

/**
 * The `_meta` key a relay sets, on a call it sends again, to the milliseconds the call has waited
 * already: a wait (`wait_seconds`, given or its default) is asked for what is left of its time.
 */
export const WAITED_MS = 'session-collab/waited_ms';

/** Characters of a client's environment a hello carries at most. */
export const MAX_ENV_CHARS = 256 * 1024;

export type RelayWelcome =
  | { ok: true; pid: number }
  /**
   * `full`: the server takes no more connections now (the relay serves in-process); `retry`: not
   * now (the relay's earlier connection is still being let go), try again.
   */
  | { ok: false; error: string; hint?: string; full?: boolean; retry?: boolean };

/** Bytes of a hello line at most: a longer first line is not a relay's. */
export const MAX_HELLO_BYTES = 320 * 1024;
/**
 * Bytes of a connection's first line at most: a relay's hello, or a hook's request (its client's
 * input, up to 8 MiB, in an envelope): `{"hook":1,"event":…,"request":{input, cwd, identity}}`,
 * answered with one line `{"answer":…}` or `{"error":…}`.
 */
export const MAX_FIRST_LINE_BYTES = 9 * 1024 * 1024;

/** Unix sockets' paths are limited to 108 bytes (104 on macOS), a server's own adds its pid: past that they go to tmp. */
const MAX_SOCKET_PATH = 92;

/** FNV-1a, 32 bits, as 8 hex digits: a short, stable name for a longer text (no crypto to load). */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * Which server a process of this install wants: its build (the version and the bundles' size and
 * time, dist/main.cjs beside the running bundle; `dev` from source) and the team database its
 * environment names (SESSION_COLLAB_DATABASE_URL), since a server serves one database.
 */
export function serverKey(version: string, env: NodeJS.ProcessEnv = process.env): string {
  let build = 'dev';
  if (typeof __filename === 'string' && __filename.endsWith('.cjs')) {
    try {
      const { size, mtimeMs } = statSync(join(__dirname, 'main.cjs'));
      build = `${version}-${size}-${Math.round(mtimeMs)}`;
    } catch {
      build = version;
    }
  }
  return shortHash(`${build}\n${env.SESSION_COLLAB_DATABASE_URL ?? ''}`);
}

/** The socket (or pipe) of this home's server for `key` (`serverKey`). */
export function relaySocketPath(home: string, key: string): string {
  if (process.platform === 'win32') return `\\\\?\\pipe\\session-collab-${shortHash(home)}-${key}`;
  const inHome = join(home, `server-${key}.sock`);
  return inHome.length <= MAX_SOCKET_PATH
    ? inHome
    : join(tmpdir(), `session-collab-${shortHash(home)}-${key}.sock`);
}

/** Where a relay records why this home's server could not run (read by `doctor`). */
export const serverFailureFile = (home: string): string => join(home, 'server-failed.json');
