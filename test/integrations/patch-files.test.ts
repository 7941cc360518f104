import { describe, expect, it } from 'vitest';
import { applyPatchFiles, applyPatchText } from '../../src/integrations/patch-files.js';

describe('the files a Codex apply_patch names', () => {
  it('added, updated, deleted and moved-to files, each once; a patch past the limits stands for all', () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: src/new.ts',
      '+export {};',
      '*** Update File: src/a.ts',
      '*** Move to: src/b.ts',
      '@@',
      '-*** Update File: not/a/header.ts',
      '+x',
      '*** Delete File: old/gone.ts',
      '*** Update File: src/a.ts',
      '*** End Patch',
    ].join('\n');
    expect(applyPatchFiles(patch)).toEqual(['src/new.ts', 'src/a.ts', 'src/b.ts', 'old/gone.ts']);
    expect(applyPatchFiles('not a patch')).toEqual([]);
    const many = Array.from({ length: 1_001 }, (_, i) => `*** Add File: f${i}.ts`).join('\n');
    expect(applyPatchFiles(many)).toBeNull();
    expect(applyPatchFiles(`*** Add File: a.ts\n+${'x'.repeat(3 * 1024 * 1024)}`)).toBeNull();
  });
});

describe('the text a Codex apply_patch leaves in its file', () => {
  const current = 'def login(user):\n    pass\n\n\ndef logout(user):\n    pass\n';
  it('applies an update chunk by chunk, after its @@ anchor; an added file is its lines', () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/auth.py',
      '@@ def logout(user):',
      '-    pass',
      '+    session.clear()',
      '*** End Patch',
    ].join('\n');
    // The anchor puts the change in logout, though login has the same line first.
    expect(applyPatchText(patch, current)).toBe(
      'def login(user):\n    pass\n\n\ndef logout(user):\n    session.clear()\n',
    );
    const withContext =
      '*** Begin Patch\n*** Update File: src/auth.py\n@@\n def login(user):\n-    pass\n+    return user\n*** End Patch';
    expect(applyPatchText(withContext, current)).toBe(
      'def login(user):\n    return user\n\n\ndef logout(user):\n    pass\n',
    );
    expect(applyPatchText('*** Begin Patch\n*** Add File: b.py\n+x = 1\n+y = 2\n*** End Patch', '')).toBe(
      'x = 1\ny = 2\n',
    );
  });

  it('cannot tell for several files, a deletion or a move, or a chunk the file does not have', () => {
    expect(applyPatchText('*** Add File: a\n+x\n*** Add File: b\n+y', '')).toBeNull();
    expect(applyPatchText('*** Delete File: src/auth.py', current)).toBeNull();
    expect(
      applyPatchText('*** Update File: src/auth.py\n@@\n-    return 1\n+    return 2', current),
    ).toBeNull();
  });
});
