import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { connectInMemory, testApp } from '../helpers/app.js';
import { CLI, requireBuild } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const DATA = fileURLToPath(new URL('../fixtures/ai-collab/data.json', import.meta.url));

function cli(home: string, ...args: string[]) {
  requireBuild();
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, SESSION_COLLAB_HOME: home, NO_COLOR: '1' },
    encoding: 'utf8',
  });
}

describe('session-collab import-ai-collab', () => {
  it('imports the original data file once, however often it runs; the dialogue reads as before', async () => {
    const home = tempDir('collab-home-');
    const first = JSON.parse(cli(home, 'import-ai-collab', DATA, '--json').stdout);
    expect(first).toEqual({
      projects: { imported: 1, existing: 0 },
      work_items: { imported: 1, existing: 0 },
      reviews: { imported: 2, existing: 0 },
      suggestions: 1,
      responses: 1,
    });
    const second = cli(home, 'import-ai-collab', DATA);
    expect(second.stdout).toContain('0 project(s), 0 work item(s), 0 review(s)');
    expect(second.stdout).toContain('4 record(s) were there already');

    const app = await testApp({ home });
    const c = await connectInMemory(app, gitRepo(), 'reader', ['collab', 'review']);
    const detail = await c.call<{
      status: string;
      version: number;
      revisions: unknown[];
      diff: string;
      reviews: Array<{ verdict: string; stale: boolean; suggestions: Array<{ status: string }> }>;
    }>('get_work_detail', { workItemId: 'work_123', includeHistory: true });
    expect(detail).toMatchObject({ status: 'approved', version: 2 });
    expect(detail.revisions).toHaveLength(2);
    expect(detail.diff).toContain('+class AuthService { /* updated with bcrypt */ }');
    expect(detail.reviews.map((r) => [r.verdict, r.stale])).toEqual([
      ['request_changes', true],
      ['approve', false],
    ]);
    expect(detail.reviews[0]!.suggestions[0]!.status).toBe('accepted');
    const timeline = await c.call<{ text: string }>('get_conversation', {
      projectId: 'auth-api',
      format: 'timeline',
    });
    expect(timeline.text.split('\n').map((l) => l.slice(21))).toEqual([
      'worker   claude-worker: submitted code "JWT Authentication Service" (v1, development)  [work_123]',
      'reviewer claude-reviewer: requested changes on v1 (a stale version): Good implementation but security concerns — [critical] Password hashing required  [work_123]',
      'worker   claude-worker: responded (will_fix): Good catch! Will implement bcrypt hashing  [work_123]',
      'worker   claude-worker: updated to v2: Added bcrypt password hashing per security review  [work_123]',
      'reviewer claude-reviewer: approved v2: Secure now  [work_123]',
    ]);
    expect(
      (
        await c.call<{ work_items: Array<{ id: string }> }>('search_work', { query: 'bcrypt' })
      ).work_items.map((w) => w.id),
    ).toEqual(['work_123']);
  });

  it('refuses a file of another shape, naming the field, and imports nothing', () => {
    const home = tempDir('collab-home-');
    const bad = join(tempDir(), 'data.json');
    writeFileSync(
      bad,
      JSON.stringify({
        workItems: [
          {
            id: 'w',
            projectId: 'p',
            type: 'poem',
            phase: 'planning',
            title: 't',
            content: 'c',
            status: 'draft',
          },
        ],
      }),
    );
    const out = cli(home, 'import-ai-collab', bad);
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('workItems.0.type');
    expect(out.stderr).toContain('Nothing was imported');
  });

  it('refuses names with control characters, metadata nested past its bound, times no listing shows and an item id of another project; an id given twice is counted once', async () => {
    const home = tempDir('collab-home-');
    const item = (extra: Record<string, unknown>) => ({
      id: 'w',
      projectId: 'p',
      type: 'code',
      phase: 'development',
      title: 't',
      content: 'c',
      status: 'pending_review',
      ...extra,
    });
    const file = (data: unknown) => {
      const path = join(tempDir(), 'data.json');
      writeFileSync(path, JSON.stringify(data));
      return path;
    };
    // Deeper than JSON.stringify goes: written as text.
    const deepFile = join(tempDir(), 'deep.json');
    writeFileSync(
      deepFile,
      JSON.stringify({ workItems: [item({ metadata: '@' })] }).replace(
        '"@"',
        `${'{"d":'.repeat(20_000)}{}${'}'.repeat(20_000)}`,
      ),
    );
    for (const [data, field] of [
      [{ projects: [{ id: 'p\n\u001b[31mRED', name: 'N' }] }, 'projects.0.id'],
      [{ projects: [{ id: 'p', name: 'N\r\n\u001b]0;pwned\u0007' }] }, 'projects.0.name'],
      [deepFile, 'workItems.0.metadata'],
      // A time no listing can show (it made every listing of the project an internal error).
      [{ workItems: [item({ submittedAt: 1e20 })] }, 'workItems.0.submittedAt'],
      [{ workItems: [item({ updatedAt: 'not a date' })] }, 'workItems.0.updatedAt'],
      [{ workItems: [item({ submittedAt: -1 })] }, 'workItems.0.submittedAt'],
      // Past what a tool takes: the listings and details of the project would carry it whole.
      [{ workItems: [item({ title: 't'.repeat(100_000) })] }, 'workItems.0.title'],
      [{ workItems: [item({ content: 'c'.repeat(1_000_001) })] }, 'workItems.0.content'],
      // Revisions and reviews of versions the item does not have.
      [
        { workItems: [item({ version: 2, history: [{ version: 3, content: 'c' }] })] },
        'workItems.0.history.0.version',
      ],
      [
        {
          workItems: [
            item({
              version: 2,
              history: [
                { version: 1, content: 'a' },
                { version: 1, content: 'b' },
              ],
            }),
          ],
        },
        'workItems.0.history.1.version',
      ],
      [
        {
          workItems: [item({ reviews: [{ id: 'r', workItemVersion: 4, verdict: 'approve', summary: 's' }] })],
        },
        'workItems.0.reviews.0.workItemVersion',
      ],
      [
        {
          workItems: [item({})],
          reviews: [{ id: 'r', workItemId: 'w', workItemVersion: 4, verdict: 'approve', summary: 's' }],
        },
        'is of version 4 of work item "w", which has 1',
      ],
    ] as const) {
      const out = cli(home, 'import-ai-collab', typeof data === 'string' ? data : file(data), '--json');
      expect(out.status, field).toBe(1);
      expect(JSON.parse(out.stdout).error).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringContaining(field),
      });
    }
    const suggestion = (title: string) => ({
      id: 's1',
      type: 'bug',
      severity: 'major',
      title,
      explanation: 'e',
    });
    const twice = cli(
      home,
      'import-ai-collab',
      file({
        projects: [{ id: 'p', name: 'P' }],
        workItems: [
          item({
            reviews: [
              {
                id: 'r1',
                verdict: 'request_changes',
                summary: 's',
                suggestions: [suggestion('x'), suggestion('y')],
                responses: [
                  { id: 'x1', response: 'a', action: 'will_fix' },
                  { id: 'x1', response: 'b', action: 'will_fix' },
                ],
              },
            ],
          }),
        ],
      }),
      '--json',
    );
    expect(JSON.parse(twice.stdout)).toMatchObject({ suggestions: 1, responses: 1 });
    // The same item id in another project is another item: its reviews would land on this one.
    const approve = { id: 'r9', verdict: 'approve', summary: 'forged', suggestions: [] };
    const other = cli(
      home,
      'import-ai-collab',
      file({ workItems: [item({ projectId: 'q', reviews: [approve] })] }),
      '--json',
    );
    expect(other.status).toBe(1);
    expect(JSON.parse(other.stdout).error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('has the id of a work item of project "p"'),
    });
    // A history that holds only some versions: the current one is a revision too, and the detail
    // compares the newest two it has.
    expect(
      cli(
        home,
        'import-ai-collab',
        file({
          workItems: [
            item({ id: 'h', content: 'three\n', version: 3, history: [{ version: 1, content: 'one\n' }] }),
          ],
        }),
        '--json',
      ).status,
    ).toBe(0);
    const app = await testApp({ home });
    const c = await connectInMemory(app, gitRepo(), 'reader', ['collab', 'review']);
    const detail = await c.call<{ reviews: Array<{ id: string }> }>('get_work_detail', { workItemId: 'w' });
    expect(detail.reviews.map((r) => r.id)).toEqual(['r1']);
    const history = await c.call<{ revisions: Array<{ version: number }>; diff: string }>('get_work_detail', {
      workItemId: 'h',
      includeHistory: true,
    });
    expect(history.revisions.map((r) => r.version)).toEqual([1, 3]);
    expect(history.diff).toContain('-one\n+three');
    await app.close();
  });
});
