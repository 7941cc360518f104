import type { AppContext } from '../../app/app.js';
import { invalidInput } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { iso } from '../../core/time.js';
import type { SessionRow } from '../../store/sessions-store.js';

export const DECISION_CATEGORIES = ['architecture', 'naming', 'api', 'database', 'ui', 'other'] as const;
export type DecisionCategory = (typeof DECISION_CATEGORIES)[number];

export interface DecisionView {
  decision_id: string;
  category: string;
  title: string;
  description: string;
  session: string;
  session_id: string;
  created_at: string;
}

/** Turns free text into an FTS5 query: every word must appear (as a prefix), no operator syntax. */
export function ftsQuery(text: string): string {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) throw invalidInput('query: give at least one word to search for.');
  return words.map((w) => `"${w}"*`).join(' ');
}

export class DecisionsService {
  constructor(private readonly app: AppContext) {}

  add(
    session: SessionRow,
    input: { category: DecisionCategory; title: string; description: string },
  ): DecisionView {
    const title = input.title.trim();
    const description = input.description.trim();
    if (!title) throw invalidInput('title: give the decision a title.');
    if (!description) throw invalidInput('description: say what was decided and why.');
    const row = {
      id: newId(),
      project_id: session.project_id,
      session_id: session.id,
      session_name: session.name,
      category: input.category,
      title,
      description,
      created_at: this.app.now(),
    };
    this.app.store.decisions.insert(row);
    this.app.log.info('decision.add', { decision: row.id, session: session.id });
    return this.view(row);
  }

  list(
    session: SessionRow,
    input: { category?: DecisionCategory | undefined; limit: number; query?: string | undefined },
  ): DecisionView[] {
    const { decisions } = this.app.store;
    const category = input.category ?? null;
    const rows =
      input.query !== undefined
        ? decisions.search(session.project_id, ftsQuery(input.query), category, input.limit)
        : decisions.list(session.project_id, category, input.limit);
    return rows.map((r) => this.view(r));
  }

  private view(r: {
    id: string;
    category: string;
    title: string;
    description: string;
    session_name: string;
    session_id: string;
    created_at: number;
  }): DecisionView {
    return {
      decision_id: r.id,
      category: r.category,
      title: r.title,
      description: r.description,
      session: r.session_name,
      session_id: r.session_id,
      created_at: iso(r.created_at),
    };
  }
}
