import { describe, expect, it } from 'vitest';
import { applyPatchFiles } from '../../src/integrations/patch-files.js';

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
