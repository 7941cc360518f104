/** The review toolset's projects: created, read, listed, changed and archived. */
import { z } from 'zod';
import { inline, shown } from '../../core/fence.js';
import { idField, text } from '../fields.js';
import { defineTool } from '../tool-context.js';
import { me, project, projectStatus, svc } from './review-fields.js';

export const createProject = defineTool({
  name: 'create_project',
  title: 'Create a review project',
  description: 'Create a project by id, for work outside a repository (a repository is a project already).',
  kind: 'write',
  input: z.strictObject({
    id: text('idChars').regex(/^[\w.-]+$/, 'letters, digits, ".", "_", "-"'),
    name: text('nameChars'),
    description: text('descriptionChars', 0).optional(),
  }),
  output: project,
  handler: async (ctx, input) => svc(ctx).projects.create(await me(ctx), input),
  text: (o) => `Project ${o.id} ("${inline(o.name)}") created.`,
});

export const getProject = defineTool({
  name: 'get_project',
  title: 'Project details',
  description: 'A project, its settings and its work items by status.',
  kind: 'read',
  input: z.strictObject({
    projectId: idField.optional().describe('Default: this session’s repository'),
  }),
  output: project,
  handler: async (ctx, input) =>
    svc(ctx).projects.projectView(await svc(ctx).projects.projectOf(await me(ctx), input.projectId)),
  text: (o) =>
    `Project ${o.id} ("${inline(o.name)}"), ${o.status}: ${inline(JSON.stringify(o.work_items), 4000)}`,
});

export const listProjects = defineTool({
  name: 'list_projects',
  title: 'List projects',
  description: 'All projects (repositories and projects created by id).',
  kind: 'read',
  input: z.strictObject({ status: projectStatus.optional() }),
  output: z.object({ projects: z.array(project) }),
  handler: async (ctx, input) => ({ projects: await svc(ctx).projects.list(input.status) }),
  text: (o) =>
    o.projects.map((p) => `${p.id} ${shown(p.name, 120)} (${p.status})`).join('\n') || 'No projects.',
});

export const updateProject = defineTool({
  name: 'update_project',
  title: 'Update a project',
  description:
    'Rename, describe, set status, or change settings (require_approval; allow_self_review, which only the person can allow, in config.json: a project may turn it off).',
  kind: 'write',
  input: z.strictObject({
    projectId: idField,
    name: text('nameChars').optional(),
    description: text('descriptionChars', 0).optional(),
    status: projectStatus.optional(),
    settings: z
      .strictObject({ require_approval: z.boolean().optional(), allow_self_review: z.boolean().optional() })
      .optional(),
  }),
  output: project,
  handler: async (ctx, input) => svc(ctx).projects.update(await me(ctx), input.projectId, input),
  text: (o) => `Project ${o.id} updated.`,
});

export const archiveProject = defineTool({
  name: 'archive_project',
  title: 'Archive a project',
  description: 'Archive a project: it stays readable, takes no new work.',
  kind: 'destructive',
  idempotent: true,
  input: z.strictObject({ projectId: idField }),
  output: project,
  handler: async (ctx, input) =>
    svc(ctx).projects.update(await me(ctx), input.projectId, { status: 'archived' }),
  text: (o) => `Project ${o.id} archived.`,
});
