import { describe, expect, it } from 'vitest';
import { parseHookEvent } from '../../src/integrations/agent-hooks.js';

describe('hook event names', () => {
  it('are the clients’ and ours only: names every object has are no events', () => {
    expect(parseHookEvent('pre-tool-use')).toBe('pre-tool-use');
    expect(parseHookEvent('PreToolUse')).toBe('pre-tool-use');
    expect(parseHookEvent('preToolUse')).toBe('pre-tool-use');
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', ''])
      expect(parseHookEvent(name)).toBeNull();
  });
});
