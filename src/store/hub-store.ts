import type { Db } from './database.js';

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
  private readonly addTokenStmt;
  private readonly tokenByHashStmt;
  private readonly liveTokenByNameStmt;
  private readonly tokensStmt;
  private readonly revokeStmt;
  private readonly tokenUsedStmt;
  private readonly liveTokensStmt;
  private readonly addSessionStmt;
  private readonly sessionStmt;
  private readonly seenStmt;
  private readonly bindStmt;
  private readonly closeSessionStmt;
  private readonly purgeSessionsStmt;
  private readonly addLoginStmt;
  private readonly useLoginStmt;
  private readonly addCookieStmt;
  private readonly cookieStmt;
  private readonly purgeLoginsStmt;
  private readonly purgeCookiesStmt;

  constructor(db: Db) {
    this.addTokenStmt = db.prepare(
      'INSERT INTO hub_tokens (id, name, hash, created_at) VALUES (@id, @name, @hash, @created_at)',
    );
    this.tokenByHashStmt = db.prepare<[string], TokenRow>('SELECT * FROM hub_tokens WHERE hash = ?');
    this.liveTokenByNameStmt = db.prepare<[string], TokenRow>(
      'SELECT * FROM hub_tokens WHERE name = ? AND revoked_at IS NULL',
    );
    this.tokensStmt = db.prepare<[], TokenRow>('SELECT * FROM hub_tokens ORDER BY created_at, id');
    this.revokeStmt = db.prepare('UPDATE hub_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.tokenUsedStmt = db.prepare('UPDATE hub_tokens SET last_used_at = ? WHERE id = ?');
    this.liveTokensStmt = db
      .prepare<[], { n: number }>('SELECT count(*) AS n FROM hub_tokens WHERE revoked_at IS NULL')
      .pluck();
    this.addSessionStmt = db.prepare(
      `INSERT INTO mcp_sessions (id, token_id, initialize, project_root, client_session_id, name, created_at, last_seen_at)
       VALUES (@id, @token_id, @initialize, @project_root, @client_session_id, @name, @at, @at)`,
    );
    this.sessionStmt = db.prepare<[string], McpSessionRow>('SELECT * FROM mcp_sessions WHERE id = ?');
    this.seenStmt = db.prepare('UPDATE mcp_sessions SET last_seen_at = ? WHERE id = ?');
    this.bindStmt = db.prepare('UPDATE mcp_sessions SET collab_session_id = ? WHERE id = ?');
    this.closeSessionStmt = db.prepare(
      'UPDATE mcp_sessions SET closed_at = ? WHERE id = ? AND closed_at IS NULL',
    );
    this.purgeSessionsStmt = db.prepare(
      'DELETE FROM mcp_sessions WHERE coalesce(closed_at, last_seen_at) < ?',
    );
    this.addLoginStmt = db.prepare(
      'INSERT INTO dashboard_logins (hash, created_at, expires_at) VALUES (?, ?, ?)',
    );
    this.useLoginStmt = db.prepare(
      'UPDATE dashboard_logins SET used_at = @now WHERE hash = @hash AND used_at IS NULL AND expires_at > @now',
    );
    this.addCookieStmt = db.prepare(
      'INSERT INTO dashboard_sessions (hash, csrf, created_at, expires_at) VALUES (?, ?, ?, ?)',
    );
    this.cookieStmt = db.prepare<[string, number], { csrf: string }>(
      'SELECT csrf FROM dashboard_sessions WHERE hash = ? AND expires_at > ?',
    );
    this.purgeLoginsStmt = db.prepare('DELETE FROM dashboard_logins WHERE expires_at < ?');
    this.purgeCookiesStmt = db.prepare('DELETE FROM dashboard_sessions WHERE expires_at < ?');
  }

  addToken(row: Pick<TokenRow, 'id' | 'name' | 'hash' | 'created_at'>): void {
    this.addTokenStmt.run(row);
  }
  tokenByHash(hash: string): TokenRow | undefined {
    return this.tokenByHashStmt.get(hash);
  }
  liveTokenNamed(name: string): TokenRow | undefined {
    return this.liveTokenByNameStmt.get(name);
  }
  tokens(): TokenRow[] {
    return this.tokensStmt.all();
  }
  revokeToken(id: string, at: number): boolean {
    return this.revokeStmt.run(at, id).changes > 0;
  }
  tokenUsed(id: string, at: number): void {
    this.tokenUsedStmt.run(at, id);
  }
  liveTokenCount(): number {
    return this.liveTokensStmt.get() as unknown as number;
  }

  addSession(row: {
    id: string;
    token_id: string | null;
    initialize: string;
    project_root: string | null;
    client_session_id: string | null;
    name: string | null;
    at: number;
  }): void {
    this.addSessionStmt.run(row);
  }
  session(id: string): McpSessionRow | undefined {
    return this.sessionStmt.get(id);
  }
  sessionSeen(id: string, at: number): void {
    this.seenStmt.run(at, id);
  }
  bindSession(id: string, collabSessionId: string): void {
    this.bindStmt.run(collabSessionId, id);
  }
  closeSession(id: string, at: number): void {
    this.closeSessionStmt.run(at, id);
  }

  addLogin(hash: string, at: number, expiresAt: number): void {
    this.addLoginStmt.run(hash, at, expiresAt);
  }
  /** Uses a login code once: true when it was valid and unused. */
  useLogin(hash: string, now: number): boolean {
    return this.useLoginStmt.run({ hash, now }).changes > 0;
  }
  addCookie(hash: string, csrf: string, at: number, expiresAt: number): void {
    this.addCookieStmt.run(hash, csrf, at, expiresAt);
  }
  /** The CSRF token of a live dashboard cookie. */
  cookie(hash: string, now: number): string | undefined {
    return this.cookieStmt.get(hash, now)?.csrf;
  }

  /** Forgets MCP sessions unseen since `sessionsBefore`, and expired logins and cookies. */
  purge(sessionsBefore: number, now: number): number {
    return (
      this.purgeSessionsStmt.run(sessionsBefore).changes +
      this.purgeLoginsStmt.run(now).changes +
      this.purgeCookiesStmt.run(now).changes
    );
  }
}
