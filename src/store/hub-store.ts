import type { Sql } from './sql.js';

export interface TokenRow {
  id: string;
  name: string;
  hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface McpSessionRow {
  id: string;
  token_id: string | null;
  initialize: string;
  project_root: string | null;
  client_session_id: string | null;
  name: string | null;
  collab_session_id: string | null;
  created_at: number;
  last_seen_at: number;
  closed_at: number | null;
}

/** The hub's own records: agents' tokens, MCP sessions over HTTP, dashboard logins and cookies. */
export class HubStore {
  constructor(private readonly sql: Sql) {}

  async addToken(row: Pick<TokenRow, 'id' | 'name' | 'hash' | 'created_at'>): Promise<void> {
    await this.sql.run('INSERT INTO hub_tokens (id, name, hash, created_at) VALUES (?, ?, ?, ?)', [
      row.id,
      row.name,
      row.hash,
      row.created_at,
    ]);
  }
  tokenByHash(hash: string): Promise<TokenRow | undefined> {
    return this.sql.get<TokenRow>('SELECT * FROM hub_tokens WHERE hash = ?', [hash]);
  }
  liveTokenNamed(name: string): Promise<TokenRow | undefined> {
    return this.sql.get<TokenRow>('SELECT * FROM hub_tokens WHERE name = ? AND revoked_at IS NULL', [name]);
  }
  tokens(): Promise<TokenRow[]> {
    return this.sql.all<TokenRow>('SELECT * FROM hub_tokens ORDER BY created_at, id');
  }
  async revokeToken(id: string, at: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      'UPDATE hub_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
      [at, id],
    );
    return changes > 0;
  }
  async tokenUsed(id: string, at: number): Promise<void> {
    await this.sql.run('UPDATE hub_tokens SET last_used_at = ? WHERE id = ?', [at, id]);
  }
  /** Read on every request to the hub: kept while no token is created or revoked (store/reads-kept.ts). */
  async liveTokenCount(): Promise<number> {
    const row = await this.sql.kept('live tokens', ['hub_tokens'], () =>
      this.sql.get<{ n: number }>('SELECT count(*) AS n FROM hub_tokens WHERE revoked_at IS NULL'),
    );
    return row!.n;
  }

  async addSession(row: {
    id: string;
    token_id: string | null;
    initialize: string;
    project_root: string | null;
    client_session_id: string | null;
    name: string | null;
    at: number;
  }): Promise<void> {
    await this.sql.run(
      `INSERT INTO mcp_sessions (id, token_id, initialize, project_root, client_session_id, name, created_at, last_seen_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        row.id,
        row.token_id,
        row.initialize,
        row.project_root,
        row.client_session_id,
        row.name,
        row.at,
        row.at,
      ],
    );
  }
  session(id: string): Promise<McpSessionRow | undefined> {
    return this.sql.get<McpSessionRow>('SELECT * FROM mcp_sessions WHERE id = ?', [id]);
  }
  async sessionSeen(id: string, at: number): Promise<void> {
    await this.sql.run('UPDATE mcp_sessions SET last_seen_at = ? WHERE id = ?', [at, id]);
  }
  async bindSession(id: string, collabSessionId: string): Promise<void> {
    await this.sql.run('UPDATE mcp_sessions SET collab_session_id = ? WHERE id = ?', [collabSessionId, id]);
  }
  async closeSession(id: string, at: number): Promise<void> {
    await this.sql.run('UPDATE mcp_sessions SET closed_at = ? WHERE id = ? AND closed_at IS NULL', [at, id]);
  }

  async addLogin(hash: string, at: number, expiresAt: number): Promise<void> {
    await this.sql.run('INSERT INTO dashboard_logins (hash, created_at, expires_at) VALUES (?, ?, ?)', [
      hash,
      at,
      expiresAt,
    ]);
  }
  /** Uses a login code once: true when it was valid and unused. */
  async useLogin(hash: string, now: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      'UPDATE dashboard_logins SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ?',
      [now, hash, now],
    );
    return changes > 0;
  }
  async addCookie(hash: string, csrf: string, at: number, expiresAt: number): Promise<void> {
    await this.sql.run(
      'INSERT INTO dashboard_sessions (hash, csrf, created_at, expires_at) VALUES (?, ?, ?, ?)',
      [hash, csrf, at, expiresAt],
    );
  }
  /** The CSRF token of a live dashboard cookie. */
  async cookie(hash: string, now: number): Promise<string | undefined> {
    const row = await this.sql.get<{ csrf: string }>(
      'SELECT csrf FROM dashboard_sessions WHERE hash = ? AND expires_at > ?',
      [hash, now],
    );
    return row?.csrf;
  }

  /** Forgets MCP sessions unseen since `sessionsBefore`, and expired logins and cookies. */
  async purge(sessionsBefore: number, now: number): Promise<number> {
    const sessions = await this.sql.run(
      'DELETE FROM mcp_sessions WHERE coalesce(closed_at, last_seen_at) < ?',
      [sessionsBefore],
    );
    const logins = await this.sql.run('DELETE FROM dashboard_logins WHERE expires_at < ?', [now]);
    const cookies = await this.sql.run('DELETE FROM dashboard_sessions WHERE expires_at < ?', [now]);
    return sessions.changes + logins.changes + cookies.changes;
  }
}
