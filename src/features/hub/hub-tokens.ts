import { createHash, randomBytes } from 'node:crypto';
import { CollabError, invalidInput } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { TokenRow } from '../../store/hub-store.js';
import type { Wiring } from '../tool-context.js';

/** What a person sees of a token: never the secret, which exists only when it is created. */
export interface TokenView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const NAME = /^[A-Za-z0-9][\w.@-]{0,63}$/;
/** A token's last use is written at most this often (a busy agent would write on every request). */
const USE_WRITE_MS = 60_000;

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function view(row: TokenRow): TokenView {
  return {
    id: row.id,
    name: row.name,
    created_at: new Date(row.created_at).toISOString(),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
  };
}

/**
 * The bearer tokens agents present to the hub, one per agent (or person), by name. A token is shown
 * once, when created; only its SHA-256 is stored, so a copy of the database reveals none.
 */
export class HubTokens {
  constructor(private readonly app: Wiring) {}

  async create(name: string): Promise<{ token: string; view: TokenView }> {
    if (!NAME.test(name))
      throw invalidInput(
        `Token name "${name.slice(0, 80)}" is not valid.`,
        'Use 1 to 64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit (e.g. the agent’s name).',
      );
    const token = `sc_${randomBytes(32).toString('base64url')}`;
    const { store } = this.app;
    const row = await store.write(async () => {
      if (await store.hub.liveTokenNamed(name))
        throw invalidInput(
          `A token named "${name}" exists already.`,
          `Revoke it first (session-collab token revoke ${name}), or choose another name.`,
        );
      const added = { id: newId(), name, hash: sha256(token), created_at: this.app.now() };
      await store.hub.addToken(added);
      return (await store.hub.tokenByHash(added.hash))!;
    });
    return { token, view: view(row) };
  }

  async list(): Promise<TokenView[]> {
    return (await this.app.store.hub.tokens()).map(view);
  }

  /** Revokes the live token with that name, or the token with that id (or unique id prefix). */
  revoke(nameOrId: string): Promise<TokenView> {
    const { store } = this.app;
    return store.write(async () => {
      const rows = await store.hub.tokens();
      const named = rows.find((t) => t.name === nameOrId && t.revoked_at === null);
      const byId = rows.filter((t) => t.id.startsWith(nameOrId));
      const target = named ?? (nameOrId.length >= 4 && byId.length === 1 ? byId[0] : undefined);
      if (!target) throw new CollabError('TOKEN_NOT_FOUND', `No live token is named "${nameOrId}".`);
      await store.hub.revokeToken(target.id, this.app.now());
      return view((await store.hub.tokenByHash(target.hash))!);
    });
  }

  /** The live token a request presents, or null. */
  async verify(secret: string): Promise<TokenRow | null> {
    if (!secret.startsWith('sc_') || secret.length > 200) return null;
    const row = await this.app.store.hub.tokenByHash(sha256(secret));
    if (!row || row.revoked_at !== null) return null;
    const now = this.app.now();
    if (row.last_used_at === null || now - row.last_used_at > USE_WRITE_MS) {
      try {
        await this.app.store.write(() => this.app.store.hub.tokenUsed(row.id, now));
      } catch {
        // the time of last use is a courtesy: never refuse a request for it
      }
    }
    return row;
  }

  /** Whether any live token exists: then every request must present one. */
  async required(): Promise<boolean> {
    return (await this.app.store.hub.liveTokenCount()) > 0;
  }
}
