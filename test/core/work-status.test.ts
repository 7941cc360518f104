import { describe, expect, it } from 'vitest';
import { CollabError } from '../../src/core/errors.js';
import {
  allowedActions,
  assertCan,
  assertGate,
  changedLines,
  nextStatus,
  type WorkAction,
  type WorkStatus,
} from '../../src/core/work-status.js';

describe('work item status machine', () => {
  it.each<[WorkStatus, WorkAction, WorkStatus, string[]?]>([
    ['draft', 'submit', 'pending_review'],
    ['pending_review', 'open', 'in_review'],
    ['in_review', 'review', 'changes_requested', ['request_changes']],
    ['in_review', 'review', 'approved', ['approve']],
    ['in_review', 'review', 'in_review', ['comment']],
    ['in_review', 'review', 'changes_requested', ['approve', 'request_changes']],
    ['changes_requested', 'update', 'pending_review'],
    ['approved', 'update', 'pending_review'],
    ['approved', 'merge', 'merged'],
    ['draft', 'update', 'draft'],
  ])('%s --%s--> %s', (from, action, to, verdicts) => {
    expect(() => assertCan(from, action, 'w1')).not.toThrow();
    expect(nextStatus(from, action, verdicts as never)).toBe(to);
  });

  it.each<[WorkStatus, WorkAction]>([
    ['merged', 'update'],
    ['merged', 'review'],
    ['pending_review', 'merge'],
    ['changes_requested', 'merge'],
    ['draft', 'review'],
  ])('%s cannot %s: INVALID_STATE naming the state and the allowed moves', (from, action) => {
    try {
      assertCan(from, action, 'w1');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CollabError);
      const e = error as CollabError;
      expect(e.code).toBe('INVALID_STATE');
      expect(e.message).toContain(`is ${from}`);
      if (allowedActions(from).length > 0) expect(e.hint).toContain(`From ${from} you can:`);
      else expect(e.hint).toContain('final');
    }
  });

  it('the gate needs an approval of the current version, unless relaxed', () => {
    expect(() => assertGate({ id: 'w', version: 2, status: 'approved' }, [2], true, 'merge')).not.toThrow();
    expect(() => assertGate({ id: 'w', version: 2, status: 'approved' }, [1], true, 'merge')).toThrow(
      /version 2 of work item w is not approved/,
    );
    expect(() => assertGate({ id: 'w', version: 2, status: 'in_review' }, [], false, 'merge')).not.toThrow();
  });

  it('counts changed lines', () => {
    expect(changedLines('a\nb\nc', 'a\nb\nc')).toBe(0);
    expect(changedLines('a\nb\nc', 'a\nB\nc')).toBe(2);
    expect(changedLines('a', 'a\nb\nc')).toBe(2);
  });
});
