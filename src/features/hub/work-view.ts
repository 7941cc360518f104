import { type NumberedLine, numberedLines } from '../../core/line-diff.js';
import { projectLabel } from '../../core/project-label.js';
import type { Wiring } from '../tool-context.js';

/** Lines of a work item's content a page shows; past it, it says how many more there are. */
export const WORK_PAGE_LINES = 2_000;
/** Reviews and suggestions a page shows (the newest), lines of a suggestion's texts, characters of the conversation. */
export const WORK_PAGE_LIMITS = {
  reviews: 100,
  suggestions: 200,
  suggestionLines: 40,
  conversationChars: 100_000,
};
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

/** A work item in a list: what it is, where it stands, who sent it, when it last moved. */
export interface WorkSummary {
  id: string;
  title: string;
  type: string;
  status: string;
  version: number;
  by: string;
  at: string;
}

export interface WorkView extends WorkSummary {
  description: string | null;
  project: { id: string; label: string; kind: string };
  /** The version the lines are compared with (the one before), or null for the first. */
  previous: number | null;
  /** The version before, when it differs by too much to show as changes (the content is shown whole). */
  tooManyChanges: number | null;
  /** What the author said this version changed. */
  change: string | null;
  /** The content, with the previous version's removed lines between; cut at `WORK_PAGE_LINES`. */
  lines: NumberedLine[];
  more: number;
  reviews: Array<{ reviewer: string; verdict: string; summary: string; version: number; at: string }>;
  suggestions: SuggestionAtLines[];
  /** Suggestions (older ones) and reviews not shown, past the page's bounds. */
  hidden: { suggestions: number; reviews: number };
  conversation: string;
  conversationCut: boolean;
}

/** At most `lines` lines of a suggestion's text, saying how many more there were. */
function cutLines(text: string | null, lines: number): string | null {
  if (text === null) return null;
  const all = text.slice(0, lines * 200).split('\n');
  if (all.length <= lines && text.length <= lines * 200) return text;
  const more = text.split('\n').length - Math.min(lines, all.length);
  return `${all.slice(0, lines).join('\n')}\n… ${more > 0 ? `${more} more lines` : 'cut'}`;
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
  const changes = previous ? numberedLines(previous.content, item.content, PAGE_DIFF_EDITS) : null;
  let lines =
    changes ??
    numberedLines('', item.content, Number.MAX_SAFE_INTEGER)!.map((l) => ({ ...l, kind: ' ' as const }));
  const more = Math.max(0, lines.length - WORK_PAGE_LINES);
  lines = lines.slice(0, WORK_PAGE_LINES);
  const P = WORK_PAGE_LIMITS;
  const { rows: reviews, total: reviewCount } = await store.reviews.recentOfItem(id, P.reviews);
  const recent = await store.reviews.recentSuggestions(id, P.suggestions);
  const reviewOf = new Map(reviews.map((r) => [r.id, r]));
  // A suggestion of an older review than the page lists: its review read once.
  for (const s of recent.rows)
    if (!reviewOf.has(s.review_id)) {
      const r = await store.reviews.get(s.review_id);
      if (r) reviewOf.set(r.id, r);
    }
  const suggestions = recent.rows.map((s): SuggestionAtLines => {
    const at = s.location ? (JSON.parse(s.location) as Record<string, unknown>) : {};
    const review = reviewOf.get(s.review_id);
    // A range given backwards is the same range; an end alone is one line.
    const a = lineOf(at.startLine);
    const b = lineOf(at.endLine);
    const start = a !== null && b !== null ? Math.min(a, b) : (a ?? b);
    const end = a !== null && b !== null ? Math.max(a, b) : (a ?? b);
    return {
      id: s.id,
      title: s.title,
      explanation: s.explanation,
      type: s.type,
      severity: s.severity,
      status: s.status,
      reviewer: review?.reviewer_name ?? 'a reviewer',
      version: review?.work_item_version ?? item.version,
      start,
      end,
      section: typeof at.section === 'string' ? at.section : null,
      current: cutLines(s.current_content, P.suggestionLines),
      suggested: cutLines(s.suggested_content, P.suggestionLines),
    };
  });
  const { text = '' } = (await app.reviews.conversation({
    workItemId: id,
    format: 'detailed',
    limit: 50,
  })) as {
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
    previous: changes && lines.some((l) => l.kind !== ' ') ? previous!.version : null,
    tooManyChanges: previous && changes === null ? previous.version : null,
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
    hidden: { suggestions: recent.total - suggestions.length, reviews: reviewCount - reviews.length },
    conversation: text.slice(0, P.conversationChars),
    conversationCut: text.length > P.conversationChars,
  };
}
