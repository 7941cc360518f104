import { CollabError } from './errors.js';

/** A team database URL for a person to read: its password hidden. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

/** Who, where and which database a URL names, for the messages below. */
function parts(url: string): { user: string; host: string; port: string; database: string } {
  try {
    const u = new URL(url);
    return {
      user: decodeURIComponent(u.username) || '(your system user)',
      host: u.hostname || 'localhost',
      port: u.port || '5432',
      database:
        decodeURIComponent(u.pathname.replace(/^\//, '')) || decodeURIComponent(u.username) || '(default)',
    };
  } catch {
    return { user: '?', host: '?', port: '?', database: '?' };
  }
}

const WHERE = 'SESSION_COLLAB_DATABASE_URL (or "database_url" in config.json)';

/**
 * What a failure to reach or use the team database (PostgreSQL) means for a person, in one line
 * and what to do next: a closed port, an unknown host, a wrong password, an unknown role or
 * database, missing rights, no connection left. Null for anything else.
 */
export function describeTeamDatabaseFault(error: unknown, url: string): CollabError | null {
  const e = error as { code?: unknown; message?: unknown; errors?: unknown[] };
  // A refused connection to a name with several addresses comes as an AggregateError.
  const first = Array.isArray(e?.errors) && e.errors.length > 0 ? (e.errors[0] as typeof e) : e;
  const code = typeof first?.code === 'string' ? first.code : '';
  const message = typeof first?.message === 'string' ? first.message : String(error);
  const { user, host, port, database } = parts(url);
  const at = `the team database ${redactUrl(url)}`;
  const fault = (text: string, hint: string) => new CollabError('DB_ERROR', text, hint);
  switch (code) {
    case 'ECONNREFUSED':
      return fault(
        `Nothing accepts connections at ${host}:${port}, the address of ${at}.`,
        `Start PostgreSQL there (check with: pg_isready -h ${host} -p ${port}), or correct ${WHERE}.`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return fault(`The host "${host}" of ${at} is not known.`, `Correct the host in ${WHERE}.`);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return fault(
        `${host}:${port}, the address of ${at}, does not answer.`,
        `Check that this machine can reach it (a firewall, a VPN), or correct ${WHERE}.`,
      );
    case '28P01':
      return fault(
        `PostgreSQL refused the password of role "${user}" for ${at}.`,
        `Correct the password in ${WHERE}, or set the role's: ALTER ROLE "${user}" PASSWORD '…';`,
      );
    case '28000':
      return fault(
        /role .* does not exist/i.test(message)
          ? `The role "${user}" does not exist on the server of ${at}.`
          : `PostgreSQL does not let role "${user}" connect to ${at} (${message}).`,
        /role .* does not exist/i.test(message)
          ? `Create it (sudo -u postgres createuser ${user} --pwprompt), or correct the user in ${WHERE}.`
          : `Allow it in the server's pg_hba.conf, or correct ${WHERE}.`,
      );
    case '3D000':
      return fault(
        `The database "${database}" does not exist on ${host}:${port}.`,
        `Create it for the team's role (sudo -u postgres createdb ${database} --owner ${user}), or correct ${WHERE}.`,
      );
    case '42501':
      return fault(
        `Role "${user}" lacks a right it needs in ${at}: ${message}.`,
        `Make the role the owner of the database and its tables (ALTER DATABASE "${database}" OWNER TO "${user}"), or connect as the role that made them; \`session-collab doctor\` lists what is missing.`,
      );
    case '53300':
      return fault(
        `The server of ${at} has no connection left (${message}).`,
        'Lower "database_pool_size" on each machine, raise the server\'s max_connections, or run fewer replicas; `session-collab doctor` counts them.',
      );
    case '57P03':
      return fault(`The server of ${at} is starting or stopping.`, 'Try again in a moment.');
    default:
      if (/timeout expired|Connection terminated due to connection timeout/i.test(message))
        return fault(
          `${host}:${port}, the address of ${at}, did not answer in time.`,
          `Check that this machine can reach it, or correct ${WHERE}.`,
        );
      return null;
  }
}
