import { describe, expect, it } from 'vitest';
import { nextSteps, type StepInput } from '../../src/core/next-steps.js';

/** What every delivered notification has besides its payload. */
const delivered = { id: 'n1', state: 'pending', count: 1, created_at: '', updated_at: '' } as const;
const contract = (name: string, from: string, to: string) => ({
  ...delivered,
  type: 'contract_updated' as const,
  realm: 'r',
  domain: 'd',
  contract: name,
  from_repo: null,
  old_version: from,
  new_version: to,
});

const base: StepInput = {
  tool: 'collab_claims_list',
  output: {},
  error: null,
  unreadMessages: 0,
  notifications: [],
};

describe('next_steps', () => {
  it('nothing to suggest in a quiet state', () => {
    expect(nextSteps(base)).toEqual([]);
  });

  it('a conflict: message the holder or wait', () => {
    const steps = nextSteps({
      ...base,
      tool: 'collab_check',
      output: {
        safe: false,
        conflicts: [
          { session: 'A', session_id: 's1', file: 'x' },
          { session: 'A', session_id: 's1', file: 'y' },
        ],
      },
    });
    expect(steps).toEqual([
      'Message "A" (s1) with collab_message_send, or wait; ask the user before overriding their work.',
    ]);
  });

  it('unread messages, except when reading them', () => {
    expect(nextSteps({ ...base, unreadMessages: 2 })).toEqual([
      'Read 2 unread messages with collab_message_list.',
    ]);
    expect(nextSteps({ ...base, tool: 'collab_message_list', unreadMessages: 2 })).toEqual([]);
  });

  it('a contract you consume changed: review it', () => {
    const steps = nextSteps({
      ...base,
      notifications: [contract('s3-permissions', '1.0.0', '1.3.0')],
    });
    expect(steps).toEqual(['Contract s3-permissions changed (1.0.0 → 1.3.0): review it with contract_get.']);
  });

  it('errors lead somewhere, and at most four steps', () => {
    expect(nextSteps({ ...base, output: null, error: 'CLAIM_CONFLICT' })[0]).toContain('collab_claims_list');
    const many = nextSteps({
      ...base,
      unreadMessages: 1,
      notifications: Array.from({ length: 6 }, (_, i) => contract(`c${i}`, '1', '2')),
    });
    expect(many).toHaveLength(4);
  });

  it('claims taken over while the session was away: message the one who took them', () => {
    const steps = nextSteps({
      ...base,
      notifications: [
        {
          ...delivered,
          type: 'claim_taken_over',
          session: 'taker',
          session_id: 's9',
          files: ['src/a.ts'],
          intent: 'refactor',
          released: ['src/a.ts'],
        },
      ],
    });
    expect(steps).toEqual([
      'While you were inactive "taker" (s9) took src/a.ts: message it before touching those files again.',
    ]);
  });
});

describe('next_steps after a review', () => {
  const reviewed = (status: string) =>
    nextSteps({
      ...base,
      notifications: [
        {
          ...delivered,
          type: 'review_submitted',
          title: 'JWT login',
          work_item_id: 'w1',
          reviewer: 'r',
          verdict: 'approve',
          suggestions: 0,
          status,
        },
      ],
    });

  it('asks the worker to respond or update while the item is open', () => {
    expect(reviewed('changes_requested')[0]).toContain('respond_to_review or update_work');
  });

  it('says a merged item is final instead', () => {
    const [step] = reviewed('merged');
    expect(step).toContain('is merged: nothing more to do');
    expect(step).not.toContain('update_work');
  });
});
