import { describe, expect, it } from 'vitest';
import { WORK_PAGE_LIMITS, workView } from '../../src/features/hub/work-view.js';
import { connectInMemory, testApp } from '../helpers/app.js';
import { gitRepo } from '../helpers/temp.js';

const TOOLSETS = ['collab', 'review'];
const TEN_LINES = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n');

const suggestion = (location: Record<string, number>, title: string) => ({
  type: 'style',
  severity: 'minor',
  title,
  explanation: 'e',
  location,
});

async function reviewed() {
  const app = await testApp();
  const repo = gitRepo();
  const [worker, reviewer] = await Promise.all(
    ['worker', 'reviewer'].map((n) => connectInMemory(app, repo, n, TOOLSETS)),
  );
  const work = await worker!.call<{ id: string }>('submit_work', {
    type: 'code',
    phase: 'review',
    title: 'Ten lines',
    content: TEN_LINES,
  });
  const review = (summary: string, suggestions: unknown[]) =>
    reviewer!.call('submit_review', { workItemId: work.id, verdict: 'comment', summary, suggestions });
  const close = () => Promise.all([worker, reviewer].map((c) => c!.close()));
  return { app, worker: worker!, work, review, close };
}

describe("a work item's page", () => {
  it('places each suggestion at its lines, whichever way a range is given; long texts are cut, saying how much', async () => {
    const { app, work, review, close } = await reviewed();
    const big = Array.from({ length: 500 }, (_, i) => `x${i}`).join('\n');
    await review('odd places', [
      suggestion({ startLine: 7, endLine: 3 }, 'backwards'),
      suggestion({ endLine: 4 }, 'end only'),
      { ...suggestion({ startLine: 2 }, 'long texts'), currentContent: big, suggestedContent: big },
    ]);
    const view = (await workView(app, work.id))!;
    const byTitle = (t: string) => view.suggestions.find((s) => s.title === t)!;
    expect([byTitle('backwards').start, byTitle('backwards').end]).toEqual([3, 7]);
    expect([byTitle('end only').start, byTitle('end only').end]).toEqual([4, 4]);
    const cut = byTitle('long texts').current!.split('\n');
    expect(cut).toHaveLength(WORK_PAGE_LIMITS.suggestionLines + 1);
    expect(cut.at(-1)).toBe(`… ${500 - WORK_PAGE_LIMITS.suggestionLines} more lines`);
    expect(view.hidden).toEqual({ suggestions: 0, reviews: 0 });
    await close();
  });

  it('shows the newest suggestions and says how many older ones are left out', async () => {
    const { app, work, review, close } = await reviewed();
    await review('first', [suggestion({ startLine: 1 }, 'the first of all')]);
    for (let r = 0; r < 3; r++)
      await review(
        `flood ${r}`,
        Array.from({ length: 80 }, (_, i) => suggestion({ startLine: 1 }, `flood ${r}.${i}`)),
      );
    const view = (await workView(app, work.id))!;
    expect(view.suggestions).toHaveLength(WORK_PAGE_LIMITS.suggestions);
    expect(view.hidden.suggestions).toBe(1 + 240 - WORK_PAGE_LIMITS.suggestions);
    expect(view.suggestions.some((s) => s.title === 'flood 2.79')).toBe(true);
    expect(view.suggestions.some((s) => s.title === 'the first of all')).toBe(false);
    expect(view.reviews.map((r) => r.summary)).toEqual(['first', 'flood 0', 'flood 1', 'flood 2']);
    await close();
  });

  it('says when a new version differs in too many lines to show as changes, and shows it whole', async () => {
    const { app, worker, work, close } = await reviewed();
    const rewrite = Array.from({ length: 4_100 }, (_, i) => `new ${i}`).join('\n');
    await worker.call('update_work', { workItemId: work.id, content: rewrite, changeDescription: 'all new' });
    const view = (await workView(app, work.id))!;
    expect(view.previous).toBeNull();
    expect(view.tooManyChanges).toBe(1);
    expect(view.lines.every((l) => l.kind === ' ')).toBe(true);
    expect(view.lines).toHaveLength(2_000);
    expect(view.more).toBe(2_100);
    await close();
  });
});
