import { describe, expect, it } from 'vitest';
import { coalescePayload, NOTIFICATION_TTL_MS, stateAt } from '../../src/core/notifications.js';

describe('notification lifecycle', () => {
  it('expires 7 days after creation', () => {
    expect(stateAt('pending', 0, NOTIFICATION_TTL_MS - 1)).toBe('pending');
    expect(stateAt('pending', 0, NOTIFICATION_TTL_MS)).toBe('expired');
    expect(stateAt('seen', 0, NOTIFICATION_TTL_MS + 5)).toBe('expired');
  });
});

describe('coalescing', () => {
  it('a contract going 1.0.0 → 1.1.0 → 1.3.0 is one change from 1.0.0 to 1.3.0', () => {
    let p = coalescePayload(
      { contract: 'c', old_version: '1.0.0', new_version: '1.1.0' },
      { contract: 'c', old_version: '1.1.0', new_version: '1.2.0' },
    );
    p = coalescePayload(p, { contract: 'c', old_version: '1.2.0', new_version: '1.3.0' });
    expect(p).toEqual({ contract: 'c', old_version: '1.0.0', new_version: '1.3.0' });
  });

  it('unions lists and takes the newest other values', () => {
    expect(coalescePayload({ files: ['a', 'b'], intent: 'x' }, { files: ['b', 'c'], intent: 'y' })).toEqual({
      files: ['a', 'b', 'c'],
      intent: 'y',
    });
  });
});

describe('what a notification says', () => {
  it('names the kind of work submitted, not the notification type', async () => {
    const { describeNotification } = await import('../../src/core/notifications.js');
    expect(
      describeNotification({
        type: 'work_submitted',
        work_type: 'design',
        title: 'Auth flow',
        work_item_id: 'w1',
        version: 2,
        from: 'worker',
        project: 'p',
        id: 'n1',
        state: 'pending',
        count: 1,
        created_at: '2026-11-22T10:00:00.000Z',
        updated_at: '2026-11-22T10:00:00.000Z',
      }),
    ).toBe('"worker" submitted design "Auth flow" (w1, v2) for review');
  });
});
