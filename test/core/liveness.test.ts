import { describe, expect, it } from 'vitest';
import { describeAge, sessionState } from '../../src/core/liveness.js';

const ctx = (over: Partial<Parameters<typeof sessionState>[1]> = {}) => ({
  now: 1_000_000_000,
  inactiveAfterMs: 30 * 60_000,
  host: 'here',
  processAlive: () => true,
  ...over,
});
const facts = (over: Partial<Parameters<typeof sessionState>[0]> = {}) => ({
  status: 'active' as const,
  lastHeartbeat: 1_000_000_000 - 1000,
  host: 'here',
  pid: 42,
  pidStart: '123',
  ...over,
});

describe('sessionState', () => {
  it('active with a fresh heartbeat and a live process', () => {
    expect(sessionState(facts(), ctx())).toBe('active');
  });
  it('ended stays ended', () => {
    expect(sessionState(facts({ status: 'ended' }), ctx())).toBe('ended');
  });
  it('inactive after the threshold', () => {
    expect(sessionState(facts({ lastHeartbeat: 1_000_000_000 - 31 * 60_000 }), ctx())).toBe('inactive');
  });
  it('inactive when its process is dead on this host, or the pid was reused', () => {
    const seen: Array<[number, string | null]> = [];
    const probe = (pid: number, start: string | null) => {
      seen.push([pid, start]);
      return false;
    };
    expect(sessionState(facts(), ctx({ processAlive: probe }))).toBe('inactive');
    expect(seen).toEqual([[42, '123']]);
  });
  it('made by a hook and heard only at its start: active for 2 minutes of silence, then inactive', () => {
    const now = 1_000_000_000;
    const once = facts({ heardOnlyAtStart: true, lastHeartbeat: now - 119_000 });
    expect(sessionState(once, ctx())).toBe('active');
    expect(sessionState({ ...once, lastHeartbeat: now - 121_000 }, ctx())).toBe('inactive');
    // Heard from again later, the 30 minutes hold as for any session.
    expect(sessionState(facts({ heardOnlyAtStart: false, lastHeartbeat: now - 20 * 60_000 }), ctx())).toBe(
      'active',
    );
  });
  it('a process on another host is not probed', () => {
    expect(sessionState(facts({ host: 'elsewhere' }), ctx({ processAlive: () => false }))).toBe('active');
  });
});

describe('describeAge', () => {
  it('reads naturally', () => {
    expect(describeAge(0, 5_000)).toBe('5s ago');
    expect(describeAge(0, 12 * 60_000)).toBe('12 min ago');
    expect(describeAge(0, 90 * 60_000)).toBe('1 h 30 min ago');
    expect(describeAge(0, 72 * 3_600_000)).toBe('3 days ago');
  });
});
