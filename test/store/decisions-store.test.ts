import { describe, expect, it } from 'vitest';
import { DecisionsStore } from '../../src/store/decisions-store.js';
import { sqlBackends } from '../helpers/sql-backends.js';

const { backends, pgUp } = sqlBackends('test/store/decisions-store.test.ts');

describe.each(Object.keys(backends))('decisions on %s', (backend) => {
  it('pages newest first, filters by category, and finds by words (prefixes, every one)', async (ctx) => {
    if (backend === 'postgresql' && !pgUp()) return ctx.skip();
    const sql = await backends[backend as keyof typeof backends]();
    await sql.run(
      "INSERT INTO projects (id, root, kind, created_at, updated_at) VALUES ('p', '/p', 'dir', 0, 0)",
    );
    const store = new DecisionsStore(sql);
    const add = (id: string, at: number, category: string, title: string, description: string) =>
      store.insert({
        id,
        project_id: 'p',
        session_id: 's',
        session_name: 'alpha',
        category,
        title,
        description,
        created_at: at,
      });
    await add('d1', 1, 'api', 'Use JWT tokens', 'Stateless sessions for the API');
    await add('d2', 2, 'database', 'Postgres for teams', 'One source of truth');
    await add('d3', 2, 'api', 'Version the API', 'Prefix routes with /v1');

    const first = await store.list('p', null, 2, null);
    expect(first.map((d) => d.id)).toEqual(['d3', 'd2']);
    const last = first.at(-1)!;
    expect(
      (await store.list('p', null, 2, { at: last.created_at, seq: last.seq! })).map((d) => d.id),
    ).toEqual(['d1']);
    expect((await store.list('p', 'api', 10, null)).map((d) => d.id)).toEqual(['d3', 'd1']);

    expect((await store.search('p', ['api'], null, 10)).map((d) => d.id).sort()).toEqual(['d1', 'd3']);
    expect((await store.search('p', ['stat', 'sess'], null, 10)).map((d) => d.id)).toEqual(['d1']);
    expect((await store.search('p', ['api'], 'database', 10)).map((d) => d.id)).toEqual([]);
    expect(await store.search('p', ['nothing'], null, 10)).toEqual([]);
  });
});
