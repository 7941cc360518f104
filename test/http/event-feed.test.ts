// The dashboard's live feed of the event log: while no page listens it only keeps its place at the
// log's end (describing an event reads what it names); a page that subscribes is handed every
// event after the position it saw, none twice.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app/app.js';
import { EventFeed } from '../../src/http/dashboard/event-feed.js';
import { connectInMemory, testApp } from '../helpers/app.js';
import { gitRepo } from '../helpers/temp.js';

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const c of opened.splice(0).reverse()) await c.close();
});

async function claimAndRelease(app: App, repo: string, file: string) {
  const session = await connectInMemory(app, repo);
  opened.push(session);
  const { claim_id } = await session.call<{ claim_id: string }>('collab_claim', {
    files: [file],
    intent: 'x',
  });
  await session.call('collab_release', { claim_id, status: 'completed' });
}

describe('the live event feed', () => {
  it('describes nothing while nobody listens, and hands a subscriber every event after its position', async () => {
    const app = await testApp();
    opened.push(app);
    const repo = gitRepo();
    const feed = await EventFeed.start(app);
    opened.push(feed);
    // Reading events describes them (the claim each names is read).
    const described = vi.spyOn(app.hub.events, 'after');

    await claimAndRelease(app, repo, 'src/a.ts');
    feed.wake();
    await vi.waitFor(async () => expect(feed.position).toBe(await feed.lastId()));
    expect(described).not.toHaveBeenCalled();

    const seen: number[] = [];
    const from = feed.position;
    feed.subscribe((e) => seen.push(e.id));
    await claimAndRelease(app, repo, 'src/b.ts');
    feed.wake();
    const end = await feed.lastId();
    await vi.waitFor(() => expect(seen.at(-1)).toBe(end));
    expect(seen).toEqual((await feed.since(from, 100)).map((e) => e.id));
    expect(described).toHaveBeenCalled();
  });
});
