import { randomBytes } from 'node:crypto';
import type { Wiring } from '../tool-context.js';
import { sha256 } from './hub-tokens.js';

/** A login link works once, within this time. */
export const LOGIN_CODE_TTL_MS = 10 * 60_000;
/** A dashboard cookie lasts this long. */
export const COOKIE_TTL_MS = 12 * 3_600_000;

/**
 * How a person gets into the dashboard: the CLI makes a one-time login code (printed as a link),
 * the browser exchanges it for a cookie, and each cookie has its own CSRF token that every change
 * must carry. Only hashes of codes and cookies are stored.
 */
export class DashboardLogins {
  constructor(private readonly app: Wiring) {}

  /** A new one-time login code. */
  async code(): Promise<string> {
    const code = randomBytes(24).toString('base64url');
    const now = this.app.now();
    await this.app.store.write(() => this.app.store.hub.addLogin(sha256(code), now, now + LOGIN_CODE_TTL_MS));
    return code;
  }

  /** Exchanges a login code for a cookie (and its CSRF token); null when the code is unknown, used or expired. */
  async exchange(code: string): Promise<{ cookie: string; csrf: string } | null> {
    if (code.length > 100) return null;
    const now = this.app.now();
    const { store } = this.app;
    // Made before the write lock is taken: nothing in it but the two writes.
    const cookie = randomBytes(32).toString('base64url');
    const csrf = randomBytes(24).toString('base64url');
    const codeHash = sha256(code);
    const cookieHash = sha256(cookie);
    return store.write(async () => {
      if (!(await store.hub.useLogin(codeHash, now))) return null;
      await store.hub.addCookie(cookieHash, csrf, now, now + COOKIE_TTL_MS);
      return { cookie, csrf };
    });
  }

  /** The CSRF token of a live cookie; null when the cookie is unknown or expired. */
  async csrfOf(cookie: string): Promise<string | null> {
    if (cookie.length > 100) return null;
    return (await this.app.store.hub.cookie(sha256(cookie), this.app.now())) ?? null;
  }
}
