import type { AppContext } from '../../app/context.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { shown } from '../../core/fence.js';
import { projectLabel } from '../../core/project-label.js';
import { iso } from '../../core/time.js';
import type { ProjectRow } from '../../store/projects-store.js';
import type { SessionRow } from '../../store/sessions-store.js';

/** Who acts: a collab session (its id and name). */
export type Actor = Pick<SessionRow, 'id' | 'name' | 'project_id'>;

export interface ProjectSettings {
  require_approval: boolean;
  allow_self_review: boolean;
}

/**
 * The projects of the review workflow: every repository is one, and more are created by id.
 * `record` appends to the workflow's history (see ReviewService).
 */
export class ReviewProjects {
  constructor(
    private readonly app: AppContext,
    private readonly record: (
      projectId: string,
      kind: string,
      actor: Actor,
      content: unknown,
    ) => Promise<void>,
  ) {}

  async project(id: string): Promise<ProjectRow> {
    const p = await this.app.store.projects.get(id);
    if (!p) throw new CollabError('PROJECT_NOT_FOUND', `No project with id ${shown(id)}.`);
    return p;
  }

  /** The project a call is about: the given id, else the caller's own (its repository). */
  projectOf(actor: Actor, projectId: string | undefined): Promise<ProjectRow> {
    return this.project(projectId ?? actor.project_id);
  }

  /**
   * A repository's project, and its work items, are its sessions' to change (its review gate above
   * all); a project made by id (create_project) belongs to no repository, and any session may.
   */
  assertChangedByItsOwn(p: ProjectRow, actor: Actor, instead: string): void {
    if (p.kind !== 'named' && p.id !== actor.project_id)
      throw new CollabError(
        'NOT_ALLOWED',
        `Project ${shown(p.id)} is another repository's: only sessions working in it change it and its work items.`,
        `${instead}, or ask a session working there (collab_message_send).`,
      );
  }

  settings(p: ProjectRow): ProjectSettings {
    const own = JSON.parse(p.settings) as Partial<ProjectSettings>;
    return {
      require_approval: own.require_approval ?? this.app.config.review_require_approval,
      // The person's to allow (config.json); a project can only do without it.
      allow_self_review: this.app.config.review_allow_self_review && own.allow_self_review !== false,
    };
  }

  async projectView(p: ProjectRow) {
    return {
      id: p.id,
      name: p.name ?? projectLabel(p).split('/').pop() ?? p.id,
      description: p.description,
      kind: p.kind,
      root: p.kind === 'named' ? null : p.root.replace(/\/\.git$/, ''),
      status: p.status,
      settings: this.settings(p),
      work_items: await this.app.store.workItems.statusCounts(p.id),
      created_at: iso(p.created_at),
      updated_at: iso(p.updated_at),
    };
  }

  create(actor: Actor, input: { id: string; name: string; description?: string | undefined }) {
    const { store } = this.app;
    return store.write(async () => {
      if (await store.projects.get(input.id))
        throw invalidInput(
          `id: a project "${input.id}" exists already.`,
          'Choose another id, or use get_project.',
        );
      const p = await store.projects.createNamed(
        { id: input.id, name: input.name, description: input.description ?? null },
        this.app.now(),
      );
      await this.record(p.id, 'project_created', actor, {
        name: input.name,
        description: input.description ?? null,
      });
      return this.projectView(p);
    });
  }

  update(
    actor: Actor,
    id: string,
    input: {
      name?: string | undefined;
      description?: string | undefined;
      status?: ProjectRow['status'] | undefined;
      settings?: Partial<ProjectSettings> | undefined;
    },
  ) {
    const { store } = this.app;
    return store.write(async () => {
      const p = await this.project(id);
      this.assertChangedByItsOwn(p, actor, 'Change your own project (leave projectId out)');
      if (input.settings?.allow_self_review === true && !this.app.config.review_allow_self_review)
        throw new CollabError(
          'NOT_ALLOWED',
          'Self-review is the person’s call, not a session’s: it is off in this home.',
          'Another session reviews the work (get_pending_reviews lists it for them). For single-session use, the person sets review_allow_self_review to true in config.json.',
        );
      const settings = { ...(JSON.parse(p.settings) as object), ...(input.settings ?? {}) };
      const next = {
        id,
        name: input.name ?? p.name,
        description: input.description ?? p.description,
        status: input.status ?? p.status,
        settings: JSON.stringify(settings),
      };
      await store.projects.update(next, this.app.now());
      await this.record(id, 'project_updated', actor, input);
      return this.projectView((await store.projects.get(id))!);
    });
  }

  async list(status: ProjectRow['status'] | undefined) {
    const projects = await this.app.store.projects.listByStatus(status ?? null);
    const views = [];
    for (const p of projects) views.push(await this.projectView(p));
    return views;
  }
}
