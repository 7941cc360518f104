import { describe, expect, it } from 'vitest';
import { connectStdio } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

describe('concurrent reviews of one item from two processes', () => {
  it('both are recorded, and the outcome does not depend on who came first', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const args = ['--toolsets', 'collab,review'];
    const [worker, approver, objector] = await Promise.all(
      [0, 1, 2].map(() => connectStdio({ cwd: repo, home, args })),
    );
    try {
      for (const [c, name] of [
        [worker!, 'worker'],
        [approver!, 'approver'],
        [objector!, 'objector'],
      ] as const) {
        await c.call('collab_session_start', { name, project_root: repo });
      }
      for (let round = 0; round < 15; round++) {
        const item = await worker!.call<{ id: string }>('submit_work', {
          type: 'code',
          phase: 'development',
          title: `change ${round}`,
          content: `v1 of ${round}`,
        });
        const [a, b] = await Promise.all([
          approver!.client.callTool({
            name: 'submit_review',
            arguments: { workItemId: item.id, verdict: 'approve', summary: 'fine' },
          }),
          objector!.client.callTool({
            name: 'submit_review',
            arguments: { workItemId: item.id, verdict: 'request_changes', summary: 'not yet' },
          }),
        ]);
        expect(a.isError ?? false).toBe(false);
        expect(b.isError ?? false).toBe(false);
        const feedback = await worker!.call<{
          work_item: { status: string };
          reviews: Array<{ verdict: string }>;
        }>('get_review_feedback', { workItemId: item.id });
        expect(feedback.reviews.map((r) => r.verdict).sort()).toEqual(['approve', 'request_changes']);
        expect(feedback.work_item.status).toBe('changes_requested');
      }
    } finally {
      await Promise.all([worker!.close(), approver!.close(), objector!.close()]);
    }
  }, 60_000);
});
