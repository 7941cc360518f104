import { describe, expect, it } from 'vitest';
import { connectInMemory, testApp } from '../helpers/app.js';
import { gitRepo } from '../helpers/temp.js';

describe('smoke', () => {
  it('lists and calls', async () => {
    const app = testApp();
    const repo = gitRepo();
    const c = await connectInMemory(app, repo);
    const tools = await c.client.listTools();
    expect(tools.tools.length).toBe(12);
    const s = await c.call('collab_session_start', { project_root: repo, name: 'A' });
    console.log(s);
    const cl = await c.call('collab_claim', { files: ['src/api/*'], intent: 'refactor' });
    console.log(cl);
    console.log(await c.fail('collab_claim', { files: [], intent: 'x' }));
  });
});
