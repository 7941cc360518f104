/**
 * Import of a data file of the original AI Collaboration MCP (`~/.mcp-ai-collab/data.json`), whose
 * shape follows its data models: `projects[]` and `workItems[]`, each work item carrying its
 * `reviews[]` (with `suggestions[]` and `responses[]`) and `history[]` (revisions); reviews may
 * also come as a top-level `reviews[]`. Dates are ISO strings. Idempotent: what is already there
 * (by id) is left alone, so importing twice imports once.
 */
import { z } from 'zod';
import { CollabError } from '../../core/errors.js';
import { LINE_CONTROLS, shown } from '../../core/fence.js';
import {
  PHASES,
  SEVERITIES,
  STATUSES,
  SUGGESTION_TYPES,
  VERDICTS,
  WORK_TYPES,
} from '../../core/work-status.js';
import { describeZodError } from '../../core/zod-issues.js';
import { text } from '../fields.js';
import type { Wiring } from '../tool-context.js';
import { saveReview, saveSuggestion, suggestionRow } from './review-records.js';

/** The last millisecond of the year 9999: a time past it (or before 1970) is no date a listing can show. */
const LAST_DATE_MS = 253_402_300_799_999;
/** A date: an ISO string, or milliseconds since 1970, within what a listing shows. */
const date = z
  .union([z.string(), z.number()])
  .refine((d) => {
    const at = typeof d === 'number' ? d : Date.parse(d);
    return Number.isFinite(at) && at >= 0 && at <= LAST_DATE_MS;
  }, 'is no date between 1970 and 9999 (an ISO string, or milliseconds since 1970)')
  .optional();
/** An id or a name: one line of plain text (shown to sessions and people as such), as long as a tool's. */
const oneLine = text('idChars').refine(
  (v) => !LINE_CONTROLS.test(v),
  'holds a control character or a line break',
);
/** Levels of objects and arrays a work item's metadata may nest (it is stored, and shown, as JSON). */
const METADATA_DEPTH = 32;

/** Whether a JSON value nests objects and arrays deeper than `max` levels. */
function nestsDeeper(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max === 0) return true;
  return Object.values(value).some((v) => nestsDeeper(v, max - 1));
}
const suggestion = z.object({
  id: oneLine,
  type: z.enum(SUGGESTION_TYPES),
  severity: z.enum(SEVERITIES),
  title: text('titleChars', 0),
  explanation: text('descriptionChars', 0),
  location: z
    .object({
      startLine: z.number().optional(),
      endLine: z.number().optional(),
      section: text('titleChars', 0).optional(),
    })
    .optional(),
  currentContent: text('workContentChars', 0).optional(),
  suggestedContent: text('workContentChars', 0).optional(),
  status: z.enum(['pending', 'accepted', 'rejected', 'partially_accepted']).default('pending'),
  resolution: z
    .object({ action: z.string().optional(), comment: text('messageChars', 0).optional(), resolvedAt: date })
    .optional(),
});
const response = z.object({
  id: oneLine,
  responderId: text('nameChars', 0).default('worker'),
  response: text('messageChars', 0),
  action: z.enum(['acknowledged', 'will_fix', 'need_discussion', 'disagree']),
  createdAt: date,
});
const review = z.object({
  id: oneLine,
  workItemId: oneLine.optional(),
  workItemVersion: z.number().int().positive().default(1),
  reviewerId: text('nameChars', 0).default('reviewer'),
  verdict: z.enum(VERDICTS),
  summary: text('messageChars', 0),
  suggestions: z.array(suggestion).default([]),
  responses: z.array(response).default([]),
  createdAt: date,
  updatedAt: date,
});
const revision = z.object({
  version: z.number().int().positive(),
  content: text('workContentChars', 0),
  title: text('titleChars', 0).optional(),
  changeDescription: text('messageChars', 0).optional(),
  createdAt: date,
  createdBy: text('nameChars', 0).optional(),
});
const workItem = z
  .object({
    id: oneLine,
    projectId: oneLine,
    type: z.enum(WORK_TYPES),
    phase: z.enum(PHASES),
    title: text('titleChars', 0),
    description: text('descriptionChars', 0).optional(),
    content: text('workContentChars', 0),
    metadata: z
      .record(z.string(), z.unknown())
      .refine((v) => !nestsDeeper(v, METADATA_DEPTH), `nests deeper than ${METADATA_DEPTH} levels`)
      .default({}),
    status: z.enum(STATUSES),
    version: z.number().int().positive().default(1),
    submittedBy: text('nameChars', 0).default('worker'),
    submittedAt: date,
    updatedAt: date,
    reviews: z.array(review).default([]),
    history: z.array(revision).default([]),
  })
  .superRefine((w, ctx) => {
    // Its revisions and reviews are of its versions: what get_work_detail compares and marks stale.
    const seen = new Set<number>();
    for (const [i, h] of w.history.entries()) {
      if (h.version > w.version || seen.has(h.version))
        ctx.addIssue({
          code: 'custom',
          path: ['history', i, 'version'],
          message: seen.has(h.version)
            ? `is version ${h.version} again`
            : `is ${h.version}, past the item's version ${w.version}`,
        });
      seen.add(h.version);
    }
    for (const [i, r] of w.reviews.entries())
      if (r.workItemVersion > w.version)
        ctx.addIssue({
          code: 'custom',
          path: ['reviews', i, 'workItemVersion'],
          message: `is ${r.workItemVersion}, past the item's version ${w.version}`,
        });
  });
const dataFile = z.object({
  projects: z
    .array(
      z.object({
        id: oneLine,
        name: text('nameChars').refine(
          (v) => !LINE_CONTROLS.test(v),
          'holds a control character or a line break',
        ),
        description: text('descriptionChars', 0).optional(),
        status: z.enum(['active', 'completed', 'archived']).default('active'),
        createdAt: date,
      }),
    )
    .default([]),
  workItems: z.array(workItem).default([]),
  reviews: z.array(review).default([]),
});

const ms = (d: string | number | undefined, fallback: number) =>
  d === undefined ? fallback : typeof d === 'number' ? Math.floor(d) : Date.parse(d);

export interface ImportResult {
  projects: { imported: number; existing: number };
  work_items: { imported: number; existing: number };
  reviews: { imported: number; existing: number };
  suggestions: number;
  responses: number;
}

export async function importAiCollab(app: Wiring, raw: unknown, source: string): Promise<ImportResult> {
  const parsed = dataFile.safeParse(raw);
  if (!parsed.success)
    throw new CollabError(
      'INVALID_INPUT',
      `${source}: ${describeZodError(parsed.error)}`,
      'Is this a data.json of AI Collaboration MCP? Nothing was imported.',
    );
  const data = parsed.data;
  const { store } = app;
  const now = app.now();
  const result: ImportResult = {
    projects: { imported: 0, existing: 0 },
    work_items: { imported: 0, existing: 0 },
    reviews: { imported: 0, existing: 0 },
    suggestions: 0,
    responses: 0,
  };
  // The events of each item are written in the order they happened, so that the dialogue reads right.
  type Pending = {
    project_id: string;
    work_item_id: string;
    kind: string;
    actor_name: string;
    role: 'worker' | 'reviewer';
    content: string;
    created_at: number;
  };
  let pending: Pending[] = [];
  const event = (
    projectId: string,
    itemId: string,
    kind: string,
    actor: string,
    role: 'worker' | 'reviewer',
    content: unknown,
    at: number,
  ) => {
    pending.push({
      project_id: projectId,
      work_item_id: itemId,
      kind,
      actor_name: actor,
      role,
      content: JSON.stringify(content),
      created_at: at,
    });
  };
  const flush = async () => {
    for (const e of pending.sort((a, b) => a.created_at - b.created_at))
      await store.workEvents.append({ ...e, actor_id: null });
    pending = [];
  };
  await store.write(async () => {
    for (const p of data.projects) {
      if (await store.projects.get(p.id)) {
        result.projects.existing++;
        continue;
      }
      await store.projects.createNamed(
        { id: p.id, name: p.name, description: p.description ?? null },
        ms(p.createdAt, now),
      );
      if (p.status !== 'active')
        await store.projects.update(
          { id: p.id, name: p.name, description: p.description ?? null, status: p.status, settings: '{}' },
          now,
        );
      result.projects.imported++;
    }
    const topReviews = new Map<string, z.output<typeof review>[]>();
    for (const r of data.reviews)
      if (r.workItemId) topReviews.set(r.workItemId, [...(topReviews.get(r.workItemId) ?? []), r]);
    for (const w of data.workItems) {
      if (!(await store.projects.get(w.projectId))) {
        await store.projects.createNamed(
          { id: w.projectId, name: w.projectId, description: 'created by import-ai-collab' },
          now,
        );
        result.projects.imported++;
      }
      const submittedAt = ms(w.submittedAt, now);
      const existing = await store.workItems.get(w.id);
      // The same id in another project is another item: this file's reviews are not its.
      if (existing && existing.project_id !== w.projectId)
        throw new CollabError(
          'INVALID_INPUT',
          `Work item ${shown(w.id)} of project ${shown(w.projectId)} has the id of a work item of project ${shown(existing.project_id)}.`,
          'Give it another id in the file, or import into a new home folder (SESSION_COLLAB_HOME). Nothing was imported.',
        );
      const fresh = !existing;
      if (fresh) {
        await store.workItems.insert({
          id: w.id,
          project_id: w.projectId,
          type: w.type,
          phase: w.phase,
          title: w.title,
          description: w.description ?? null,
          content: w.content,
          metadata: JSON.stringify(w.metadata),
          status: w.status,
          version: w.version,
          submitted_by: null,
          submitted_by_name: w.submittedBy,
          created_at: submittedAt,
          updated_at: ms(w.updatedAt, submittedAt),
        });
        // The current version is a revision too (a file's history may hold only the earlier ones).
        const current: z.output<typeof revision> = {
          version: w.version,
          content: w.content,
          changeDescription: 'imported',
          createdAt: w.updatedAt,
        };
        const revisions = [
          ...w.history,
          ...(w.history.some((h) => h.version === w.version) ? [] : [current]),
        ].sort((a, b) => a.version - b.version);
        for (const h of revisions) {
          await store.workItems.addRevision({
            work_item_id: w.id,
            version: h.version,
            title: h.title ?? w.title,
            content: h.content,
            change_description: h.changeDescription ?? (h.version === 1 ? 'submitted' : 'updated'),
            created_by: null,
            created_by_name: h.createdBy ?? w.submittedBy,
            created_at: ms(h.createdAt, submittedAt),
          });
        }
        event(
          w.projectId,
          w.id,
          'submitted',
          w.submittedBy,
          'worker',
          {
            title: w.title,
            type: w.type,
            phase: w.phase,
            version: revisions[0]!.version,
            content: revisions[0]!.content,
            imported: true,
          },
          submittedAt,
        );
        for (const h of revisions.slice(1)) {
          event(
            w.projectId,
            w.id,
            'updated',
            h.createdBy ?? w.submittedBy,
            'worker',
            {
              version: h.version,
              change_description: h.changeDescription ?? 'updated',
              content: h.content,
              imported: true,
            },
            ms(h.createdAt, submittedAt),
          );
        }
        result.work_items.imported++;
      } else result.work_items.existing++;
      for (const r of [...w.reviews, ...(topReviews.get(w.id) ?? [])]) {
        // Of the item as stored: one imported before keeps its versions.
        const versions = existing?.version ?? w.version;
        if (r.workItemVersion > versions)
          throw new CollabError(
            'INVALID_INPUT',
            `Review ${shown(r.id)} is of version ${r.workItemVersion} of work item ${shown(w.id)}, which has ${versions}.`,
            'Correct its workItemVersion in the file. Nothing was imported.',
          );
        const at = ms(r.createdAt, submittedAt);
        const inserted = await saveReview(store, {
          id: r.id,
          work_item_id: w.id,
          work_item_version: r.workItemVersion,
          reviewer_id: null,
          reviewer_name: r.reviewerId,
          verdict: r.verdict,
          summary: r.summary,
          automatic: 0,
          created_at: at,
          updated_at: ms(r.updatedAt, at),
        });
        if (!inserted) {
          result.reviews.existing++;
          continue;
        }
        result.reviews.imported++;
        for (const s of r.suggestions) {
          // An id the file gives twice is stored once, and counted as it is stored.
          const stored = await saveSuggestion(
            store,
            suggestionRow(s.id, { id: r.id, work_item_id: w.id }, s, at, {
              status: s.status,
              comment: s.resolution?.comment ?? null,
              by: w.submittedBy,
              at: ms(s.resolution?.resolvedAt, at),
            }),
          );
          if (stored) result.suggestions++;
        }
        event(
          w.projectId,
          w.id,
          'reviewed',
          r.reviewerId,
          'reviewer',
          {
            review_id: r.id,
            verdict: r.verdict,
            summary: r.summary,
            version: r.workItemVersion,
            stale: r.workItemVersion < w.version,
            suggestions: r.suggestions,
            imported: true,
          },
          at,
        );
        for (const x of r.responses) {
          const rat = ms(x.createdAt, at);
          const stored = await store.reviews.addResponse({
            id: x.id,
            review_id: r.id,
            work_item_id: w.id,
            responder_id: null,
            responder_name: x.responderId,
            response: x.response,
            action: x.action,
            created_at: rat,
          });
          if (!stored) continue;
          event(
            w.projectId,
            w.id,
            'responded',
            x.responderId,
            'worker',
            { review_id: r.id, action: x.action, response: x.response, imported: true },
            rat,
          );
          result.responses++;
        }
      }
      await flush();
    }
  });
  return result;
}
