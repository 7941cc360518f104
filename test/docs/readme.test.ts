import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allTools } from '../../src/mcp/registry.js';
import { renderToolDocs, replaceToolDocs } from '../../src/mcp/tool-docs.js';

describe('README', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

  it('documents exactly the tools the code has (run `npm run docs` after changing a tool)', async () => {
    expect(replaceToolDocs(readme, renderToolDocs(await allTools()))).toBe(readme);
  });

  it('documents every config key and error code', async () => {
    const { CONFIG_KEYS } = await import('../../src/app/config.js');
    const { ERROR_CODES } = await import('../../src/core/errors.js');
    for (const key of CONFIG_KEYS) expect(readme).toContain(`\`${key}\``);
    for (const code of Object.keys(ERROR_CODES)) expect(readme).toContain(`\`${code}\``);
  });

  it('shows the two commands of the quick start', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });
});
