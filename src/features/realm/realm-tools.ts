import { z } from 'zod';
import { word } from '../../core/fence.js';
import type { Finding } from '../../core/realm-model.js';
import { branchField, list, sessionIdField, text } from '../fields.js';
import type { SessionSummary } from '../sessions/session-types.js';
import { defineTool, type ToolContext } from '../tool-context.js';

const realm = text('pathInputChars').optional().describe('Realm folder; default: from .session-collab.yaml');
const finding = z.object({
  level: z.enum(['error', 'warning']),
  code: z.string(),
  file: z.string(),
  field: z.string().optional(),
  message: z.string(),
}) satisfies z.ZodType<Finding>;

const ctxOf = ({ app, connection }: ToolContext, realmPath?: string) =>
  app.realm.context(connection.cwd, realmPath);

export const realmStatus = defineTool({
  name: 'realm_status',
  title: 'Realm overview',
  description:
    'Repos, domains, contracts (versions, owners), bindings and live sessions of this repo’s realm.',
  kind: 'read',
  input: z.strictObject({ realm }),
  output: z.object({
    realm: z.string(),
    realm_root: z.string(),
    repos: z.array(z.string()),
    domains: z.array(
      z.object({
        name: z.string(),
        contracts: z.array(
          z.object({ name: z.string(), version: z.string(), owner: z.string(), drift: z.boolean() }),
        ),
        bindings: z.array(
          z.object({
            repo: z.string(),
            role: z.string(),
            exports: z.array(z.string()),
            imports: z.array(z.string()),
          }),
        ),
      }),
    ),
    current_repo: z.string().nullable(),
    session: z.object({ id: z.string(), name: z.string(), rfc: z.string().nullable() }).nullable(),
    sessions: z.array(
      z.object({ id: z.string(), name: z.string(), repo: z.string(), rfc: z.string().nullable() }),
    ),
  }),
  async handler(ctx, input) {
    const { model, repo } = await ctxOf(ctx, input.realm);
    const mine = ctx.connection.currentId ? await ctx.app.sessions.find(ctx.connection.currentId) : null;
    const sessions: Array<{ id: string; name: string; repo: string; rfc: string | null }> = [];
    for (const r of model.repos.keys())
      for (const s of await ctx.app.realm.liveSessionsOf(model, r))
        sessions.push({ id: s.id, name: s.name, repo: r, rfc: s.rfc });
    return {
      realm: model.name,
      realm_root: model.root,
      repos: [...model.repos.keys()],
      domains: [...model.domains.values()].map((d) => ({
        name: d.name,
        contracts: [...d.contracts.values()].map((c) => ({
          name: c.name,
          version: c.version,
          owner: c.owner,
          drift: c.schema_hash !== null && c.schema_hash !== c.computed_hash,
        })),
        bindings: [...d.bindings.values()].map((b) => ({
          repo: b.repo,
          role: b.role,
          exports: b.exports,
          imports: b.imports.map((i) => `${word(i.contract)}@${word(i.version)}`),
        })),
      })),
      current_repo: repo,
      session: mine && mine.status === 'active' ? { id: mine.id, name: mine.name, rfc: mine.rfc } : null,
      sessions,
    };
  },
  text: (o) =>
    [
      `Realm ${o.realm} (${o.realm_root})${o.current_repo ? `; you are in ${o.current_repo}` : ''}; session: ${o.session ? o.session.name : 'none'}.`,
      ...o.domains.map(
        (d) =>
          `- ${d.name}: ${d.contracts.map((c) => `${c.name}@${word(c.version)} (owner ${c.owner})`).join(', ') || 'no contracts'}; ${d.bindings.map((b) => `${b.repo} ${b.role}`).join(', ')}`,
      ),
      ...(o.sessions.length > 0
        ? [`Live sessions: ${o.sessions.map((s) => `${s.name} in ${s.repo}`).join(', ')}`]
        : []),
    ].join('\n'),
});

export const realmCheckTool = defineTool({
  name: 'realm_check',
  title: 'Validate the realm',
  description:
    'Errors and warnings: semver, unknown contracts, unsatisfied import ranges, changes by non-owners, schema drift.',
  kind: 'read',
  input: z.strictObject({ realm }),
  output: z.object({ ok: z.boolean(), errors: z.array(finding), warnings: z.array(finding) }),
  async handler(ctx, input) {
    return ctx.app.realm.check(await ctxOf(ctx, input.realm));
  },
  text: (o) =>
    [
      o.ok
        ? `Realm OK${o.warnings.length ? ` (${o.warnings.length} warning(s))` : ''}.`
        : `${o.errors.length} error(s).`,
      ...[...o.errors, ...o.warnings].map(
        (f) => `${f.level}: ${f.file}${f.field ? ` ${f.field}` : ''}: ${f.message}`,
      ),
    ].join('\n'),
});

export const contractGet = defineTool({
  name: 'contract_get',
  title: 'Contract details',
  description: 'A contract with its schema, value, owner, compatibility and version history.',
  kind: 'read',
  input: z.strictObject({ contract: text('nameChars'), domain: text('nameChars').optional(), realm }),
  output: z.object({
    name: z.string(),
    domain: z.string(),
    version: z.string(),
    owner: z.string(),
    compatibility: z.string(),
    schema: z.record(z.string(), z.unknown()),
    value: z.unknown(),
    schema_hash: z.string().nullable(),
    computed_hash: z.string(),
    drift: z.boolean(),
    evolution: z.array(
      z.object({ version: z.string(), change: z.string(), schema_hash: z.string().nullable() }),
    ),
    file: z.string(),
  }),
  async handler(ctx, input) {
    const c = ctx.app.realm.contract(await ctxOf(ctx, input.realm), input.contract, input.domain);
    return { ...c, drift: c.schema_hash !== null && c.schema_hash !== c.computed_hash };
  },
  text: (o) =>
    `${o.domain}/${o.name}@${word(o.version)} owned by ${o.owner}${o.drift ? ' — schema changed without a version bump' : ''}; ${o.evolution.length} version(s).`,
});

export const sessionStartRealm = defineTool({
  name: 'session_start',
  title: 'Start a session with realm context',
  description:
    'Start (or resume) this connection’s session in its repo, with realm, domains and contracts; the same session as collab_*.',
  kind: 'write',
  input: z.strictObject({
    rfc: branchField.optional().describe('The RFC/branch being worked on'),
    realm,
  }),
  output: z.object({
    session_id: z.string(),
    name: z.string(),
    realm: z.string(),
    repo: z.string().nullable(),
    rfc: z.string().nullable(),
    domains: z.array(z.string()),
    exports: z.array(z.string()),
    imports: z.array(z.string()),
    message: z.string(),
  }),
  async handler(ctx, input) {
    const realmCtx = await ctxOf(ctx, input.realm);
    const { session, others } = await ctx.connection.start(undefined, ctx.connection.cwd);
    if (input.rfc !== undefined) await ctx.app.sessions.setRfc(session.id, input.rfc);
    const info = ctx.app.realm.repoContext(realmCtx);
    return {
      session_id: session.id,
      name: session.name,
      ...info,
      rfc: input.rfc ?? session.rfc,
      message: `Session ${session.name} in realm ${info.realm}${info.repo ? `, repo ${info.repo}` : ''}${input.rfc ? `, RFC ${input.rfc}` : ''}. ${others.length} other active session(s) in this repo.`,
    };
  },
  text: (o) =>
    `${o.message} Domains: ${o.domains.join(', ') || 'none'}; exports: ${o.exports.join(', ') || 'none'}; imports: ${o.imports.join(', ') || 'none'}.`,
});

export const sessionStop = defineTool({
  name: 'session_stop',
  title: 'Stop the session',
  description:
    'End the session (releasing its claims) and summarise it: duration, claims, files, messages, contract changes.',
  kind: 'destructive',
  input: z.strictObject({ session_id: sessionIdField }),
  output: z.object({
    session_id: z.string(),
    duration_seconds: z.number(),
    rfc: z.string().nullable(),
    claims: z.number(),
    files: z.array(z.string()),
    messages_sent: z.number(),
    messages_read: z.number(),
    contract_changes: z.number(),
    work_submitted: z.number(),
    reviews: z.number(),
    released_claims: z.number(),
  }) satisfies z.ZodType<SessionSummary>,
  async handler({ app, connection }, input) {
    const summary = await app.sessions.stop((await connection.actor(input.session_id)).id);
    connection.forget(summary.session_id);
    return summary;
  },
  text: (o) =>
    `Session ended after ${Math.round(o.duration_seconds / 60)} min: ${o.claims} claim(s) on ${o.files.length} file pattern(s), ${o.messages_sent} message(s) sent, ${o.reviews} review(s), ${o.contract_changes} contract change(s) seen.`,
});

export const worktreeCreate = defineTool({
  name: 'worktree_create',
  title: 'Create RFC worktrees',
  description:
    'Git worktrees on branch `rfc` for the given repos, or by default this repo and its domain peers; says which and why.',
  kind: 'write',
  idempotent: true,
  input: z.strictObject({ rfc: branchField, repos: list(text('nameChars')).optional(), realm }),
  output: z.object({
    rfc: z.string(),
    created: z.array(z.string()),
    existing: z.array(z.string()),
    reason: z.string(),
    paths: z.record(z.string(), z.string()),
  }),
  async handler(ctx, input) {
    return ctx.app.realm.createWorktrees(await ctxOf(ctx, input.realm), input.rfc, input.repos);
  },
  text: (o) =>
    `${o.reason}. Created: ${o.created.join(', ') || 'none'}; already there: ${o.existing.join(', ') || 'none'}.\n${Object.entries(
      o.paths,
    )
      .map(([r, p]) => `- ${r}: ${p}`)
      .join('\n')}`,
});

export const prStatus = defineTool({
  name: 'pr_status',
  title: 'Readiness across repos',
  description:
    'Per repo (this one and its domain peers): uncommitted files, commits ahead of the default branch, whether pushed.',
  kind: 'read',
  input: z.strictObject({
    rfc: branchField.optional().describe('Branch; default: each repo’s current branch'),
    realm,
  }),
  output: z.object({
    repos: z.array(
      z.object({
        repo: z.string(),
        branch: z.string().optional(),
        base: z.string().optional(),
        worktree: z.string().nullable().optional(),
        uncommitted: z.number().optional(),
        ahead: z.number().optional(),
        pushed: z.boolean().optional(),
        upstream: z.string().nullable().optional(),
        error: z.string().optional(),
      }),
    ),
  }),
  async handler(ctx, input) {
    return { repos: ctx.app.realm.prStatus(await ctxOf(ctx, input.realm), input.rfc ?? null) };
  },
  text: (o) =>
    o.repos
      .map((r) =>
        r.error
          ? `- ${r.repo}: ${r.error}`
          : `- ${r.repo} ${r.branch}: ${r.uncommitted} uncommitted, ${r.ahead} ahead of ${r.base}, ${r.pushed ? 'pushed' : 'not pushed'}`,
      )
      .join('\n'),
});

export const realmTools = [
  realmStatus,
  realmCheckTool,
  contractGet,
  sessionStartRealm,
  sessionStop,
  worktreeCreate,
  prStatus,
];
