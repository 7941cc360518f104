import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { everyToolset } from '../../src/mcp/registry.js';
import { renderToolDocs, replaceToolDocs } from '../../src/mcp/tool-docs.js';

describe('README', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

  it('links the tool reference, which documents exactly the tools the code has (run `npm run docs` after changing a tool)', async () => {
    expect(readme).toContain('(docs/tools.md)');
    const tools = readFileSync(new URL('../../docs/tools.md', import.meta.url), 'utf8');
    expect(replaceToolDocs(tools, renderToolDocs(await everyToolset()))).toBe(tools);
  });

  it('reads in one sitting: about 300 lines, each page it leads to there', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(320);
    for (const [, page] of readme.matchAll(/\]\((docs\/[^)#]+)\)/g))
      expect(existsSync(new URL(`../../${page}`, import.meta.url)), page).toBe(true);
  });

  it('leads to a reference that documents every config key and error code', async () => {
    expect(readme).toContain('(docs/reference.md)');
    const reference = readFileSync(new URL('../../docs/reference.md', import.meta.url), 'utf8');
    const { CONFIG_KEYS } = await import('../../src/app/config.js');
    const { ERROR_CODES } = await import('../../src/core/errors.js');
    for (const key of CONFIG_KEYS) expect(reference).toContain(`\`${key}\``);
    for (const code of Object.keys(ERROR_CODES)) expect(reference).toContain(`\`${code}\``);
  });

  it('leads to the setup page, which quotes the rules `init` writes exactly, in a block of their own', async () => {
    expect(readme).toContain('(docs/setup.md)');
    const setup = readFileSync(new URL('../../docs/setup.md', import.meta.url), 'utf8');
    const { COLLABORATION_RULES } = await import('../../src/integrations/client-setup.js');
    const block = setup.match(/\n```markdown\n([\s\S]*?)\n```\n/)?.[1];
    expect(block).toBe(COLLABORATION_RULES.trim());
  });

  it('closes every fenced block where it should: no heading of the README inside one', () => {
    let fence: string | null = null; // the open block's language
    readme.split('\n').forEach((line, i) => {
      const mark = line.match(/^\s*```(\S*)/);
      if (mark) fence = fence === null ? mark[1]! : null;
      else if (fence !== null && fence !== 'markdown')
        expect(line, `README line ${i + 1}`).not.toMatch(/^#{1,3} /);
    });
    expect(fence).toBeNull();
  });

  it('shows the two commands of the quick start', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });
});

describe('docs/limits.md', () => {
  it('lists every limit by its config key, with its default and range', async () => {
    const { limitRules } = await import('../../src/core/limits.js');
    const doc = readFileSync(new URL('../../docs/limits.md', import.meta.url), 'utf8');
    const n = (v: number) => v.toLocaleString('en-US');
    for (const rule of limitRules()) {
      const row = doc.split('\n').find((line) => line.includes(`\`${rule.key}\``));
      expect(row, rule.key).toBeDefined();
      expect(row, rule.key).toContain(n(rule.value));
      expect(row, rule.key).toContain(`${n(rule.min)}–${n(rule.max)}`);
    }
  });
});
