import type { AppContext } from '../../app/context.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { decodeCursor, type Page, pageOf } from '../../core/page.js';
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

/** The words of a search: every one must appear (as a prefix); no operator syntax reaches the database. */
export function searchWords(text: string): string[] {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) throw invalidInput('query: give at least one word to search for.');
  return words;
}

export class DecisionsService {
  constructor(private readonly app: AppContext) {}

  async add(
    session: SessionRow,
    input: { category: DecisionCategory; title: string; description: string },
  ): Promise<DecisionView> {
    const title = input.title.trim();
    const description = input.description.trim();
    if (!title) throw invalidInput('title: give the decision a title.');
    if (!description) throw invalidInput('description: say what was decided and why.');
    const { store } = this.app;
    // Its time made inside the write, and the row returned by it: a call sent again gets this very
    // row back. The id is made before the write: run again (its group rolled back,
    // store/write-groups.ts), the write keeps the id a read between the group's writes saw.
    const made = newId();
    const row = await store.write(
      async () => {
        const row = {
          id: made,
          project_id: session.project_id,
          session_id: session.id,
          session_name: session.name,
          category: input.category,
          title,
          description,
          created_at: this.app.now(),
        };
        await store.decisions.insert(row);
        return row;
      },
      { project: session.project_id },
    );
    this.app.log.info('decision.add', { decision: row.id, session: session.id });
    return this.view(row);
  }

  /**
   * A page of decisions, newest first; with a query, the best `limit` matches (ranked, so without
   * a next page).
   */
  async list(
    session: SessionRow,
    input: {
      category?: DecisionCategory | undefined;
      limit: number;
      query?: string | undefined;
      cursor?: string | undefined;
    },
  ): Promise<Page<DecisionView>> {
    const { decisions } = this.app.store;
    const category = input.category ?? null;
    if (input.query !== undefined) {
      if (input.cursor !== undefined)
        throw new CollabError(
          'INVALID_INPUT',
          'cursor: a query answers its best matches in one page.',
          'Leave cursor out, or raise limit (at most 200).',
        );
      const rows = await decisions.search(
        session.project_id,
        searchWords(input.query),
        category,
        input.limit,
      );
      return { items: rows.map((r) => this.view(r)), next_cursor: null };
    }
    const after = input.cursor === undefined ? null : decodeCursor(input.cursor, 'number');
    const rows = await decisions.list(
      session.project_id,
      category,
      input.limit + 1,
      after ? { at: after.at, seq: after.id as number } : null,
    );
    const page = pageOf(rows, input.limit, (r) => ({ at: r.created_at, id: r.seq! }));
    return { items: page.items.map((r) => this.view(r)), next_cursor: page.next_cursor };
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
