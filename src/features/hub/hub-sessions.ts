import type { McpSessionRow } from '../../store/hub-store.js';

/** An MCP session as the store keeps it. */
export type StoredMcpSession = McpSessionRow;

import type { Wiring } from '../tool-context.js';

/** What an HTTP client said when it opened its MCP session, kept so that any hub process can take it up. */
export interface OpenedSession {
  id: string;
  tokenId: string | null;
  /** The client's `initialize` parameters. */
  initialize: unknown;
  projectRoot: string | null;
  clientSessionId: string | null;
  name: string | null;
}

/** Last-seen times are written at most this often per session. */
const SEEN_WRITE_MS = 30_000;

/**
 * MCP sessions over HTTP, in the store: which client, which token, which collab session. A client that
 * comes back with its Mcp-Session-Id after a hub restart keeps its session.
 */
export class HubSessions {
  private readonly written = new Map<string, number>();

  constructor(private readonly app: Wiring) {}

  async open(s: OpenedSession): Promise<void> {
    await this.app.store.write(() =>
      this.app.store.hub.addSession({
        id: s.id,
        token_id: s.tokenId,
        initialize: JSON.stringify(s.initialize),
        project_root: s.projectRoot,
        client_session_id: s.clientSessionId,
        name: s.name,
        at: this.app.now(),
      }),
    );
    this.written.set(s.id, this.app.now());
  }

  /** The session, unless it was closed. */
  async get(id: string): Promise<McpSessionRow | null> {
    const row = await this.app.store.hub.session(id);
    return row && row.closed_at === null ? row : null;
  }

  async seen(id: string): Promise<void> {
    const now = this.app.now();
    if (now - (this.written.get(id) ?? 0) < SEEN_WRITE_MS) return;
    this.written.set(id, now);
    try {
      await this.app.store.write(() => this.app.store.hub.sessionSeen(id, now));
    } catch {
      // a courtesy for the purge: never refuse a request for it
    }
  }

  async bind(id: string, collabSessionId: string): Promise<void> {
    await this.app.store.write(() => this.app.store.hub.bindSession(id, collabSessionId));
  }

  async close(id: string): Promise<void> {
    this.written.delete(id);
    await this.app.store.write(() => this.app.store.hub.closeSession(id, this.app.now()));
  }

  forget(id: string): void {
    this.written.delete(id);
  }
}
