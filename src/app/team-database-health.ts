import { describeTeamDatabaseFault, redactUrl } from '../core/team-database-faults.js';
import { SCHEMA_VERSION } from '../store/migrations/schema.js';
import { inspectPg } from '../store/pg-health.js';

export interface HealthCheck {
  name: string;
  ok: boolean;
  detail: string;
  hint?: string;
}

/**
 * Connections a process keeps at most: a hub replica (each machine's server is one) its pool and a
 * listener; `serve --in-process` 2 + 1. A `serve` relay keeps none (its machine's server has them).
 */
const SERVE_CONNECTIONS = 3;

/**
 * What `doctor` checks of the team database: that it answers, its schema, the role's rights, the
 * connection budget, and that LISTEN/NOTIFY reaches a listener (how replicas hear of changes).
 */
export async function teamDatabaseChecks(url: string, poolSize: number): Promise<HealthCheck[]> {
  const where = redactUrl(url);
  let health: Awaited<ReturnType<typeof inspectPg>>;
  try {
    health = await inspectPg(url);
  } catch (error) {
    const fault = describeTeamDatabaseFault(error, url);
    return [
      {
        name: 'team database',
        ok: false,
        detail: fault?.message ?? `${where}: ${(error as Error).message}`,
        hint: fault?.hint ?? 'Check SESSION_COLLAB_DATABASE_URL (or "database_url" in config.json).',
      },
    ];
  }
  const checks: HealthCheck[] = [
    {
      name: 'team database',
      ok: true,
      detail: `${where}: PostgreSQL ${health.server}, as role "${health.role}"`,
    },
  ];
  const { version } = health;
  checks.push({
    name: 'team schema',
    ok: version <= SCHEMA_VERSION && (version === SCHEMA_VERSION || health.canCreate),
    detail:
      version === 0
        ? `empty (schema ${SCHEMA_VERSION} is made by the first process that opens it, or \`session-collab migrate\`)`
        : `schema ${version}/${SCHEMA_VERSION}${version < SCHEMA_VERSION ? ' (migrated when a process of this version opens it)' : ''}`,
    hint:
      version > SCHEMA_VERSION
        ? 'The database is newer than this session-collab: update session-collab on this machine.'
        : `Role "${health.role}" may not create tables, so it cannot migrate: make it the owner of the database (ALTER DATABASE "${health.database}" OWNER TO "${health.role}").`,
  });
  const missing = health.missingRights;
  checks.push({
    name: 'team rights',
    ok: missing.length === 0,
    detail:
      missing.length === 0
        ? `role "${health.role}" reads and writes every table`
        : `role "${health.role}" lacks ${missing
            .slice(0, 5)
            .map((m) => `${m.lacks.join('/')} on ${m.table}`)
            .join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`,
    hint: `Give the tables to the team's role, as their owner or a superuser: REASSIGN OWNED BY <the role that made them> TO "${health.role}"; or GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "${health.role}".`,
  });
  const usable = health.maxConnections - health.reservedConnections;
  const free = usable - health.inUse;
  const replica = poolSize + 1;
  checks.push({
    name: 'team connections',
    ok: free >= replica,
    detail: `${health.inUse} of ${usable} in use (${health.ours} by "${health.role}" here); a machine's server or hub replica takes up to ${replica} (database_pool_size ${poolSize} + 1 listening; the clients' relays take none), a serve --in-process ${SERVE_CONNECTIONS}: room for ${Math.max(0, Math.floor(free / replica))} more machine(s) or replica(s)`,
    hint: `Too close to the server's max_connections (${health.maxConnections}): lower "database_pool_size" in config.json on each machine, run fewer replicas (one per machine serves all its agents), or raise max_connections.`,
  });
  checks.push({
    name: 'team notifications',
    ok: health.listenMs !== null,
    detail:
      health.listenMs === null
        ? 'a NOTIFY did not reach a LISTEN within 3 s: replicas will not hear of each other’s changes at once'
        : `LISTEN/NOTIFY works (${health.listenMs} ms)`,
    hint: 'A connection pooler in transaction mode (PgBouncer) drops LISTEN: point the URL at PostgreSQL itself, or a pooler in session mode.',
  });
  return checks;
}
