/** The layer script fails on what it forbids: run on a copy of src/ with one rule broken at a time. */
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const ROOT = new URL('../../', import.meta.url).pathname;

function checkWith(file: string, edit: (source: string) => string) {
  const copy = tempDir('collab-layers-');
  cpSync(join(ROOT, 'src'), join(copy, 'src'), { recursive: true });
  const path = join(copy, 'src', file);
  writeFileSync(path, edit(readFileSync(path, 'utf8')));
  return spawnSync(process.execPath, [join(ROOT, 'scripts', 'check-layers.mjs')], {
    cwd: copy,
    encoding: 'utf8',
  });
}

describe('the layer script', () => {
  it('passes on the code as it is', () => {
    expect(checkWith('core/time.ts', (s) => s).status).toBe(0);
  });

  it('fails on a tool handler that reaches the store', () => {
    const out = checkWith(
      'features/sessions/session-tools.ts',
      (s) =>
        `${s}\nexport const backDoor = (ctx: { app: { store: { sessions: unknown } } }) => ctx.app.store.sessions;\n`,
    );
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('session-tools.ts');
    expect(out.stderr).toContain('reaches the store');
  });

  it('fails on a command that imports the store, and on a service that climbs up to app/app.ts', () => {
    const cli = checkWith(
      'cli/status.ts',
      (s) => `import { Store } from '../store/store.js';\n${s}\nvoid Store;\n`,
    );
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain('cli/ may not import store/store.ts');
    const service = checkWith(
      'features/decisions/decisions-service.ts',
      (s) => `import type { App } from '../../app/app.js';\n${s}\nexport type Up = App;\n`,
    );
    expect(service.status).toBe(1);
    expect(service.stderr).toContain('features/ may not import app/app.ts');
  });
});
