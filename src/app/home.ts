import { homedir } from 'node:os';
import { join } from 'node:path';

export interface HomePaths {
  home: string;
  database: string;
  config: string;
  logs: string;
  log: string;
  /** Root commits of repositories without a remote, found once by `git` (`integrations/repo-identity.ts`). */
  repoCache: string;
}

/**
 * The home folder: `SESSION_COLLAB_HOME`, else `AI_COLLAB_STORAGE_DIR` (the review workflow's
 * original setting, kept as an alias), else `$XDG_CONFIG_HOME/session-collab-mcp`, else
 * `~/.config/session-collab-mcp`.
 */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): HomePaths {
  return homeAt(
    env.SESSION_COLLAB_HOME ||
      env.AI_COLLAB_STORAGE_DIR ||
      join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'session-collab-mcp'),
  );
}

/** The files of a home folder. */
export function homeAt(home: string): HomePaths {
  return {
    home,
    database: join(home, 'registry.db'),
    config: join(home, 'config.json'),
    logs: join(home, 'logs'),
    log: join(home, 'logs', 'collab.log'),
    repoCache: join(home, 'cache', 'repo-roots.json'),
  };
}
