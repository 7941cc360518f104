import { type NumberedLine, numberedLines } from '../../core/line-diff.js';
import { projectLabel } from '../../core/project-label.js';
import type { Wiring } from '../tool-context.js';

/** Lines of a work item's content a page shows; past it, it says how many more there are. */
export const WORK_PAGE_LINES = 2_000;
/** Added and removed lines past which a version is shown whole, not as changes. */
const PAGE_DIFF_EDITS = 4_000;

export interface SuggestionAtLines {
  id: string;
  title: string;
  explanation: string;
  type: string;
  severity: string;
  status: string;
  reviewer: string;
  /** The version of the content it was made on. */
  version: number;
  start: number | null;
  end: number | null;
  section: string | null;
  current: string | null;
  suggested: string | null;
}

export interface WorkView {
  id: string;
  title: string;
  type: string;
  status: string;
  version: number;
  by: string;
  at: string;
  description: string | null;
  project: { id: string; label: string; kind: string };
  /** The version the lines are compared with (the one before), or null for the first. */
  previous: number | null;
  /** What the author said this version changed. */
  change: string | null;
  /** The content, with the previous version's removed lines between; cut at `WORK_PAGE_LINES`. */
  lines: NumberedLine[];
  more: number;
  reviews: Array<{ reviewer: string; verdict: string; summary: string; version: number; at: string }>;
  suggestions: SuggestionAtLines[];
  conversation: string;
}

const lineOf = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : null);

/** A work item as its page shows it: the content against its previous version, reviews, suggestions at their lines. */
export async function workView(app: Wiring, id: string): Promise<WorkView | null> {
  const { store } = app;
  const item = await store.workItems.get(id);
  if (!item) return null;
  const project = await store.projects.get(item.project_id);
  const previous = item.version > 1 ? await store.workItems.revision(id, item.version - 1) : undefined;
  const current = await store.workItems.revision(id, item.version);
  let lines =
    (previous ? numberedLines(previous.content, item.content, PAGE_DIFF_EDITS) : null) ??
    numberedLines('', item.content, Number.MAX_SAFE_INTEGER)!.map((l) => ({ ...l, kind: ' ' as const }));
  const more = Math.max(0, lines.length - WORK_PAGE_LINES);
  lines = lines.slice(0, WORK_PAGE_LINES);
  const reviews = await store.reviews.ofItem(id);
  const versionOf = new Map(reviews.map((r) => [r.id, r]));
  const suggestions = (await store.reviews.suggestionsOf(id)).map((s): SuggestionAtLines => {
    const at = s.location ? (JSON.parse(s.location) as Record<string, unknown>) : {};
    const review = versionOf.get(s.review_id);
    return {
      id: s.id,
      title: s.title,
      explanation: s.explanation,
      type: s.type,
      severity: s.severity,
      status: s.status,
      reviewer: review?.reviewer_name ?? 'a reviewer',
      version: review?.work_item_version ?? item.version,
      start: lineOf(at.startLine),
      end: lineOf(at.endLine) ?? lineOf(at.startLine),
      section: typeof at.section === 'string' ? at.section : null,
      current: s.current_content,
      suggested: s.suggested_content,
    };
  });
  const { text } = (await app.reviews.conversation({ workItemId: id, format: 'detailed', limit: 200 })) as {
    text?: string;
  };
  return {
    id: item.id,
    title: item.title,
    type: item.type,
    status: item.status,
    version: item.version,
    by: item.submitted_by_name,
    at: new Date(item.updated_at).toISOString(),
    description: item.description,
    project: {
      id: item.project_id,
      label: project ? projectLabel(project) : item.project_id,
      kind: project?.kind ?? 'named',
    },
    previous: previous && lines.some((l) => l.kind !== ' ') ? previous.version : null,
    change: item.version > 1 ? (current?.change_description ?? null) : null,
    lines,
    more,
    reviews: reviews.map((r) => ({
      reviewer: r.reviewer_name,
      verdict: r.verdict,
      summary: r.summary,
      version: r.work_item_version,
      at: new Date(r.created_at).toISOString(),
    })),
    suggestions,
    conversation: text ?? '',
  };
}
