import { describe, expect, it } from 'vitest';
import { connectStdio } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

type Envelope = { notifications?: Array<Record<string, unknown>>; next_steps?: string[] };

describe('the review spec’s Quick Example, worker and reviewer in two processes', () => {
  it('submit, request changes with a located suggestion, respond, update, approve, merge; a third reads it all', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const args = ['--toolsets', 'collab,review'];
    const worker = await connectStdio({ cwd: repo, home, args });
    const reviewer = await connectStdio({ cwd: repo, home, args });
    const reader = await connectStdio({ cwd: repo, home, args });
    try {
      await worker.call('collab_session_start', { name: 'worker', project_root: repo });
      await reviewer.call('collab_session_start', { name: 'reviewer', project_root: repo });
      await worker.call('create_project', { id: 'auth-api', name: 'Auth API' });
      await reviewer.call('get_pending_reviews', { projectId: 'auth-api' }); // the reviewer watches the project

      const work = await worker.call<{ id: string; status: string; version: number }>('submit_work', {
        projectId: 'auth-api',
        type: 'code',
        phase: 'development',
        title: 'JWT Authentication Service',
        content:
          'class AuthService {\n  login(password, user) {\n    if (password === user.password) return sign(user);\n  }\n}',
        metadata: { filename: 'auth.service.ts', language: 'typescript' },
      });
      expect(work).toMatchObject({ status: 'pending_review', version: 1 });

      const pending = await reviewer.call<{ work_items: Array<{ id: string }> } & Envelope>(
        'get_pending_reviews',
        { projectId: 'auth-api' },
      );
      expect(pending.work_items.map((w) => w.id)).toEqual([work.id]);
      expect(pending.notifications).toEqual([
        expect.objectContaining({
          type: 'work_submitted',
          work_type: 'code',
          work_item_id: work.id,
          from: 'worker',
        }),
      ]);
      expect(
        (await reviewer.call<{ status: string }>('get_work_detail', { workItemId: work.id })).status,
      ).toBe('in_review');

      const review = await reviewer.call<{
        review_id: string;
        status: string;
        suggestions: Array<{ id: string; location: unknown }>;
      }>('submit_review', {
        workItemId: work.id,
        verdict: 'request_changes',
        summary: 'Good implementation but security concerns',
        suggestions: [
          {
            type: 'security',
            severity: 'critical',
            title: 'Password hashing required',
            explanation: 'Plain text password comparison is insecure',
            location: { startLine: 3, endLine: 3 },
            currentContent: 'if (password === user.password)',
            suggestedContent: 'if (await bcrypt.compare(password, user.hashedPassword))',
          },
        ],
      });
      expect(review.status).toBe('changes_requested');
      expect(review.suggestions[0]!.location).toEqual({ startLine: 3, endLine: 3 });

      const feedback = await worker.call<{ reviews: Array<{ id: string; verdict: string }> } & Envelope>(
        'get_review_feedback',
        { workItemId: work.id },
      );
      expect(feedback.notifications).toEqual([
        expect.objectContaining({
          type: 'review_submitted',
          verdict: 'request_changes',
          reviewer: 'reviewer',
        }),
      ]);
      expect(feedback.reviews[0]).toMatchObject({ id: review.review_id, verdict: 'request_changes' });

      await worker.call('respond_to_review', {
        workItemId: work.id,
        reviewId: review.review_id,
        response: 'Good catch! Will implement bcrypt hashing',
        action: 'will_fix',
      });
      const updated = await worker.call<{ version: number; status: string }>('update_work', {
        workItemId: work.id,
        content:
          'class AuthService {\n  async login(password, user) {\n    if (await bcrypt.compare(password, user.hashedPassword)) return sign(user);\n  }\n}',
        changeDescription: 'Added bcrypt password hashing per security review',
      });
      expect(updated).toMatchObject({ version: 2, status: 'pending_review' });
      await worker.call('mark_suggestion_resolved', {
        suggestionId: review.suggestions[0]!.id,
        resolution: 'accepted',
        comment: 'bcrypt in place',
      });

      const detail = await reviewer.call<{ diff: string; revisions: unknown[] } & Envelope>(
        'get_work_detail',
        { workItemId: work.id, includeHistory: true },
      );
      expect(detail.revisions).toHaveLength(2);
      expect(detail.diff).toContain('-    if (password === user.password) return sign(user);');
      expect(detail.diff).toContain(
        '+    if (await bcrypt.compare(password, user.hashedPassword)) return sign(user);',
      );
      expect(detail.notifications?.map((n) => n.type).sort()).toEqual(['review_response', 'work_submitted']);

      // Merging before approval is refused by the quality gate.
      expect(
        (
          await worker.fail('update_work', {
            workItemId: work.id,
            status: 'merged',
            changeDescription: 'ship it',
          })
        ).code,
      ).toBe('INVALID_STATE');
      expect(
        (
          await reviewer.call<{ status: string }>('submit_review', {
            workItemId: work.id,
            verdict: 'approve',
            summary: 'Secure now',
          })
        ).status,
      ).toBe('approved');
      expect(
        (
          await worker.call<{ status: string }>('update_work', {
            workItemId: work.id,
            status: 'merged',
            changeDescription: 'merged to main',
          })
        ).status,
      ).toBe('merged');

      const timeline = await reader.call<{ text: string }>('get_conversation', {
        workItemId: work.id,
        format: 'timeline',
      });
      const lines = timeline.text.split('\n');
      expect(lines.map((l) => l.replace(/^\S+ \S+\s+/, ''))).toEqual([
        `worker   worker: submitted code "JWT Authentication Service" (v1, development)  [${work.id}]`,
        `reviewer reviewer: opened v1 for review  [${work.id}]`,
        `reviewer reviewer: requested changes on v1: Good implementation but security concerns — [critical] Password hashing required  [${work.id}]`,
        `worker   worker: responded (will_fix): Good catch! Will implement bcrypt hashing  [${work.id}]`,
        `worker   worker: updated to v2: Added bcrypt password hashing per security review  [${work.id}]`,
        `worker   worker: marked "Password hashing required" accepted: bcrypt in place  [${work.id}]`,
        `reviewer reviewer: opened v2 for review  [${work.id}]`,
        `reviewer reviewer: approved v2: Secure now  [${work.id}]`,
        `worker   worker: merged v2  [${work.id}]`,
      ]);
      const summary = await reader.call<{ entries: Array<Record<string, unknown>> }>('get_conversation', {
        projectId: 'auth-api',
        format: 'summary',
      });
      expect(summary.entries).toEqual([
        expect.objectContaining({
          work_item_id: work.id,
          title: 'JWT Authentication Service',
          rounds: 2,
          versions: 2,
          outcome: 'merged',
          participants: ['worker (worker)', 'reviewer (reviewer)'],
        }),
      ]);
      const detailed = await reader.call<{ text: string }>('get_conversation', {
        workItemId: work.id,
        format: 'detailed',
      });
      expect(detailed.text).toContain('suggested: if (await bcrypt.compare(password, user.hashedPassword))');
      expect(detailed.text).toContain('class AuthService');
    } finally {
      await Promise.all([worker.close(), reviewer.close(), reader.close()]);
    }
  });
});
