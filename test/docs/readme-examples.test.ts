import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, requireBuild } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

/**
 * The command blocks of the README and of docs/ marked `<!-- runnable: <where> -->` run as written,
 * one shell, stopping at the first command that fails, with `session-collab` on PATH being this
 * build. `<where>` names the folder each needs, made here.
 */
const PAGES = [
  'README.md',
  ...readdirSync(new URL('../../docs', import.meta.url)).map((f) => `docs/${f}`),
].filter((f) => f.endsWith('.md'));
const BLOCKS = PAGES.flatMap((page) =>
  [
    ...readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8').matchAll(
      /<!-- runnable: (.+?) -->\n```sh\n([\s\S]*?)```/g,
    ),
  ].map((m) => ({ page, where: m[1]!, script: m[2]! })),
);

/** The folders each block names, made fresh: the working folder it runs in. */
const SETUPS: Record<string, () => string> = {
  'in a new git repository': () => gitRepo({ 'src/app.ts': 'export {}\n' }),
  'in the clone of "api" (holding order.schema.json), beside a clone of "web"': () => {
    const parent = tempDir('readme-example-');
    const api = gitRepo({
      'order.schema.json': JSON.stringify({
        type: 'object',
        properties: { id: { type: 'string' } },
        required: ['id'],
      }),
    });
    const web = gitRepo({ 'index.ts': 'export {}\n' });
    spawnSync('mv', [api, join(parent, 'api')]);
    spawnSync('mv', [web, join(parent, 'web')]);
    return join(parent, 'api');
  },
};

describe('the README examples', () => {
  it('marks some blocks runnable', () => {
    expect(BLOCKS.length).toBeGreaterThan(0);
  });

  it.each(BLOCKS.map((b) => [`${b.page}, ${b.where}`, b]))('run as written: %s', (_, block) => {
    const { where } = block as { where: string };
    requireBuild();
    const setup = SETUPS[where];
    expect(setup, `no setup here for a block marked "${where}"`).toBeDefined();
    const cwd = setup!();
    const bin = tempDir('readme-bin-');
    writeFileSync(
      join(bin, 'session-collab'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
    );
    chmodSync(join(bin, 'session-collab'), 0o755);
    const run = spawnSync('sh', ['-e', '-c', (block as { script: string }).script], {
      cwd,
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH}`,
        SESSION_COLLAB_HOME: tempDir('collab-home-'),
        HOME: tempDir('readme-user-'), // what a block writes for the user stays in the test
        NO_COLOR: '1',
      },
      encoding: 'utf8',
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stderr).not.toContain('Warning');
  });
});
