import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TIMELINE_LIMITS, type Timeline, Timelines } from '../../src/features/hub/timeline.js';
import { connectInMemory, testApp } from '../helpers/app.js';
import { git, gitRepo } from '../helpers/temp.js';

const TOOLSETS = ['collab', 'review', 'human'];

const lane = (t: Timeline, name: string) =>
  t.lanes.find((l) => l.name === name || l.name.startsWith(`${name}-`))!;
const kinds = (t: Timeline, name: string) => [...new Set(lane(t, name).marks.map((m) => m.kind))].sort();

describe('the timeline of a project', () => {
  it('draws each session a lane of what it did, where two lanes met, and commits on the lane of who made them', async () => {
    const app = await testApp();
    const repo = gitRepo({ 'src/a.ts': 'a\n', 'src/b.ts': 'b\n', 'README.md': '#\n' });
    const [alice, bob, carol] = await Promise.all(
      ['alice', 'bob', 'carol'].map((n) => connectInMemory(app, repo, n, TOOLSETS)),
    );
    for (const [c, name] of [
      [alice, 'alice'],
      [bob, 'bob'],
      [carol, 'carol'],
    ] as const)
      await c!.call('collab_session_start', { name, project_root: repo });
    await alice!.call('collab_claim', { files: ['src/a.ts'], intent: 'refactor a' });
    const sweep = await bob!.call<{ claim_id: string }>('collab_claim', {
      files: ['src/**'],
      intent: 'sweep',
    });
    await bob!.call('collab_message_send', { to_session_id: 'alice', content: 'after you' });
    await bob!.call('collab_release', { claim_id: sweep.claim_id, status: 'abandoned' });
    await carol!.call('collab_claim', { files: ['README.md'], intent: 'docs' });
    await carol!.call('collab_decision_add', { category: 'naming', title: 'Tabs', description: 'x' });
    await alice!.call('ask_human', { question: 'Ship it?', wait_seconds: 0 });
    await alice!.call('submit_work', { type: 'code', phase: 'review', title: 'Refactor a', content: 'a\n' });
    // All three work in one folder; alice commits the file she holds, a second later than the rest.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    writeFileSync(join(repo, 'src/a.ts'), 'a2\n');
    git(repo, 'commit', '-qm', 'refactor a', 'src/a.ts');

    const projectId = (await app.sessions.get(alice!.connection.currentId!)).project_id;
    const t = await new Timelines(app).of(projectId);
    expect(t.lanes.map((l) => l.name)).toEqual(['alice', 'bob', 'carol']);
    expect(kinds(t, 'alice')).toEqual(['claim', 'commit', 'question', 'review']);
    expect(kinds(t, 'bob')).toEqual(['claim', 'message']);
    expect(kinds(t, 'carol')).toEqual(['claim', 'decision']);
    // Bob's sweep is a span that ended when he let it go; alice's goes on to now.
    const [bobs] = lane(t, 'bob').marks.filter((m) => m.kind === 'claim');
    expect(bobs!.until).not.toBeNull();
    expect(bobs!.until!).toBeLessThan(t.to);
    expect(lane(t, 'alice').marks.find((m) => m.kind === 'claim')!.until).toBe(t.to);
    expect(lane(t, 'alice').marks.find((m) => m.kind === 'commit')!.text).toMatch(
      /^[0-9a-f]{7,} refactor a$/,
    );
    expect(lane(t, 'bob').marks.find((m) => m.kind === 'message')!.text).toBe('to alice: after you');
    // They met where bob's src/** reached alice's src/a.ts, once; carol met nobody.
    expect(t.meetings.map((m) => [m.a.name, m.b.name, m.target])).toEqual([['alice', 'bob', 'src/a.ts']]);
    expect(t.cut).toBe(false);
    // The window reaches back to the first lane (at least a minute), never past three hours.
    expect(t.from).toBeLessThanOrEqual(Math.min(...t.lanes.map((l) => l.from)));
    expect(t.to - t.from).toBeGreaterThanOrEqual(60_000);
    expect(t.to - t.from).toBeLessThanOrEqual(3 * 3_600_000);
    await Promise.all([alice, bob, carol].map((c) => c!.close()));
  });

  it('stays bounded for a busy project: held claims first, the newest after, one meeting per pair', async () => {
    const app = await testApp();
    const repo = gitRepo({ 'a.txt': 'a\n' });
    const [c, a, b] = await Promise.all(['c', 'a', 'b'].map((n) => connectInMemory(app, repo, n, TOOLSETS)));
    // c's claim is the oldest, and still held: it is drawn whatever came after.
    await c!.call('collab_claim', { files: ['src/a.ts'], intent: 'small fix' });
    const files = Array.from({ length: 300 }, (_, i) => `lib/m${i}.ts`);
    for (let i = 0; i < 11; i++)
      await a!.call('collab_claim', { files: files.map((f) => `${i}/${f}`), intent: `batch ${i}` });
    await b!.call('collab_claim', { files: ['**'], intent: 'everything' });
    const projectId = (await app.sessions.get(a!.connection.currentId!)).project_id;
    const t = await new Timelines(app).of(projectId);
    expect(t.cut).toBe(true);
    expect(lane(t, 'c').marks.map((m) => m.text)).toEqual(['src/a.ts: small fix']);
    const drawn = lane(t, 'a').marks.filter((m) => m.kind === 'claim');
    // The newest claim, of 300 files, is one mark naming five and how many more.
    expect(drawn.find((m) => m.text.endsWith('batch 10'))!.text).toMatch(
      /^10\/lib\/m0\.ts, .* \+295: batch 10$/,
    );
    // b met a on thousands of files and c on one: one line each, the first place and how many more.
    const met = t.meetings.map((m) => [
      [m.a.name, m.b.name]
        .map((n) => n.slice(0, 1))
        .sort()
        .join(''),
      m.more,
    ]);
    expect(met.map(([pair]) => pair).sort()).toEqual(['ab', 'bc']);
    expect(met.find(([pair]) => pair === 'bc')![1]).toBe(0);
    expect(met.find(([pair]) => pair === 'ab')![1]).toBeGreaterThan(0);
    expect(t.meetings.length).toBeLessThanOrEqual(TIMELINE_LIMITS.meetings);
    await Promise.all([a, b, c].map((x) => x!.close()));
  });
});
