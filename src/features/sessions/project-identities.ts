import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute } from 'node:path';
import { locateProject, type ProjectLocation } from '../../integrations/git-repo.js';
import type { Moved } from '../../store/project-merge.js';
import type { CoreWiring } from '../tool-context.js';

/** What became of a project still keyed by the path of a clone's git folder. */
export interface Reidentified {
  project_id: string;
  /** Its key before: the git folder's path. */
  from: string;
  /** Its key now: the repository's identity. */
  key: string;
  label: string;
  /** Rows moved into a project that was there already (absent: the project was only renamed). */
  merged?: Moved;
}

/** At most so many projects are looked at in one pass (each costs a few file reads). */
const MAX_PROJECTS = 500;

/**
 * Names each project of this machine that is still keyed by the path of a clone's git folder (from
 * before repositories were named by what survives cloning, or from before a first commit) by its
 * repository's identity, merging the projects that turn out to be one repository. Projects whose
 * folders are not on this machine wait for a machine that has them. Each project is one write
 * transaction: all of it or none.
 */
export async function reidentifyProjects(app: CoreWiring): Promise<Reidentified[]> {
  const out: Reidentified[] = [];
  const projects = (await app.store.projects.list()).filter((p) => p.kind === 'git' && isAbsolute(p.root));
  for (const project of projects.slice(0, MAX_PROJECTS)) {
    const place = await placeOf(app, project.id, project.root);
    if (!place || place.key === project.root || place.formerKey !== project.root) continue;
    const now = app.now();
    const into = await app.store.write(() => app.store.projects.ensure(place, app.host, now));
    out.push({
      project_id: into.id,
      from: project.root,
      key: place.key,
      label: place.label,
      ...(into.merged ? { merged: into.merged } : {}),
    });
    app.log.info('project.reidentified', { from: project.root, key: place.key, merged: into.merged ?? null });
  }
  return out;
}

/** Where a project keyed by a git folder is checked out here: a session's worktree, or the folder above `.git`. */
async function placeOf(app: CoreWiring, projectId: string, gitDir: string): Promise<ProjectLocation | null> {
  if (!existsSync(gitDir)) return null;
  const worktrees = (await app.store.sessions.list(projectId, true))
    .filter((s) => s.host === app.host)
    .map((s) => s.worktree);
  if (basename(gitDir) === '.git') worktrees.push(dirname(gitDir));
  for (const worktree of worktrees) {
    if (!existsSync(worktree)) continue;
    try {
      const place = locateProject(worktree, { file: app.paths.repoCache });
      if (place.formerKey === gitDir) return place;
    } catch {
      // A folder that is no longer a copy of this repository: try the next.
    }
  }
  return null;
}
