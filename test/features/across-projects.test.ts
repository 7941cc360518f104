/**
 * Another project's sessions, messages, questions and review settings are out of reach of a
 * session: not found, or not its to change (one machine's server serves every project, and a hub
 * with tokens serves several teams' agents).
 */
import { describe, expect, it } from 'vitest';
import { connectInMemory, testApp } from '../helpers/app.js';
import { gitRepo } from '../helpers/temp.js';

async function setup() {
  const app = await testApp();
  const one = gitRepo({ 'one.txt': 'first repository\n' });
  const two = gitRepo({ 'two.txt': 'second repository\n' });
  const toolsets = ['collab', 'human', 'review'];
  const a = await connectInMemory(app, one, 'a', toolsets);
  const mate = await connectInMemory(app, one, 'mate', toolsets);
  const b = await connectInMemory(app, two, 'b', toolsets);
  const start = async (c: typeof a, name: string, root: string) => {
    const { session_id } = await c.call<{ session_id: string }>('collab_session_start', {
      name,
      project_root: root,
    });
    return { session_id, project_id: (await c.call<{ id: string }>('get_project', {})).id };
  };
  const sa = await start(a, 'A', one);
  await start(mate, 'Mate', one);
  const sb = await start(b, 'B', two);
  expect(sb.project_id).not.toBe(sa.project_id);
  return { a, mate, b, sa };
}

describe('another project is out of reach', () => {
  it('messages: neither its sessions by id nor its messages by reply_to', async () => {
    const { a, b, sa } = await setup();
    expect(
      await b.fail('collab_message_send', { to_session_id: sa.session_id, content: 'hi' }),
    ).toMatchObject({
      code: 'SESSION_NOT_FOUND',
    });
    const sent = await a.call<{ message_id: string }>('collab_message_send', { content: 'to my project' });
    expect(await b.fail('collab_message_send', { reply_to: sent.message_id, content: 'hi' })).toMatchObject({
      code: 'MESSAGE_NOT_FOUND',
    });
    expect(await a.call('collab_message_list', {})).toMatchObject({ messages: [] });
  });

  it("reads through a session's eyes stay in the project; questions are their own session's", async () => {
    const { a, mate, b, sa } = await setup();
    expect(await b.fail('collab_check', { session_id: sa.session_id, files: ['one.txt'] })).toMatchObject({
      code: 'SESSION_NOT_FOUND',
      message: expect.stringContaining('in this project'),
    });
    await a.call('ask_human', { question: 'Ship it?', wait_seconds: 0 });
    for (const other of [b, mate])
      expect(await other.fail('list_questions', { session_id: sa.session_id, status: 'all' })).toMatchObject({
        code: 'NOT_OWNER',
      });
    expect(await a.call('list_questions', {})).toMatchObject({ questions: [{ question: 'Ship it?' }] });
  });

  it("a repository's project, its review gate above all, is changed only by its own sessions", async () => {
    const { a, b, sa } = await setup();
    for (const [tool, args] of [
      ['update_project', { projectId: sa.project_id, settings: { allow_self_review: true } }],
      ['update_project', { projectId: sa.project_id, name: 'pwned' }],
      ['archive_project', { projectId: sa.project_id }],
    ] as const)
      expect(await b.fail(tool, args)).toMatchObject({
        code: 'NOT_ALLOWED',
        message: expect.stringContaining("another repository's"),
      });
    expect(await a.call('get_project', {})).toMatchObject({
      status: 'active',
      settings: { allow_self_review: false },
    });
    expect(await a.call('update_project', { projectId: sa.project_id, name: 'ours' })).toMatchObject({
      name: 'ours',
    });
    // A project made by id belongs to no repository: any session may change it.
    await a.call('create_project', { id: 'shared-docs', name: 'Docs' });
    expect(await b.call('update_project', { projectId: 'shared-docs', name: 'Docs site' })).toMatchObject({
      name: 'Docs site',
    });
  });

  it("a repository's work items are changed only by its sessions; another repository's may review them", async () => {
    const { a, mate, b } = await setup();
    const item = await a.call<{ id: string }>('submit_work', {
      type: 'code',
      phase: 'planning',
      title: 'Parser',
      content: 'v1\n',
    });
    for (const args of [
      { content: 'taken over\n', changeDescription: 'mine now' },
      { phase: 'done', changeDescription: 'skip' },
      { status: 'merged', changeDescription: 'merge' },
    ])
      expect(await b.fail('update_work', { workItemId: item.id, ...args })).toMatchObject({
        code: 'NOT_ALLOWED',
        message: expect.stringContaining("another repository's"),
      });
    expect(await a.call('get_work_detail', { workItemId: item.id })).toMatchObject({ version: 1 });
    // Nor submitted to from elsewhere: its submitter could not update it.
    const { id: projectId } = await a.call<{ id: string }>('get_project', {});
    expect(
      await b.fail('submit_work', {
        projectId,
        type: 'code',
        phase: 'planning',
        title: 'Mine',
        content: 'x',
      }),
    ).toMatchObject({ code: 'NOT_ALLOWED' });
    // A reviewer from elsewhere approves; the repository's sessions move it on.
    await b.call('get_work_detail', { workItemId: item.id });
    expect(
      await b.call('submit_review', { workItemId: item.id, verdict: 'approve', summary: 'ok' }),
    ).toMatchObject({ status: 'approved' });
    expect(
      await mate.call('update_work', { workItemId: item.id, status: 'merged', changeDescription: 'done' }),
    ).toMatchObject({ status: 'merged' });
  });
});
