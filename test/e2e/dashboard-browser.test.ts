import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, chromiumFor, launchChromium } from '../helpers/browser.js';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { connectHttp, type HubProcess, loginLink, startHubProcess } from '../helpers/hub.js';
import { connectStdio, hookClient } from '../helpers/stdio.js';
import { git, gitRepo, tempDir } from '../helpers/temp.js';

const available = chromiumFor('test/e2e/dashboard-browser.test.ts');

let browser: Browser;
const hubs: HubProcess[] = [];
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  if (!available) return;
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close().catch(() => {})));
  await Promise.all(hubs.splice(0).map((h) => h.stop()));
});

async function hub(home: string, listen?: string) {
  const h = await startHubProcess({ home, ...(listen ? { listen } : {}) });
  hubs.push(h);
  return h;
}

async function agent(options: Parameters<typeof connectHttp>[0]) {
  const c = await connectHttp(options);
  closers.push(() => c.close());
  return c;
}

/** A logged-in page (the one-time link sets the cookie); `width` for a phone-sized screen. */
async function dashboard(h: HubProcess, width = 1280): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  closers.push(() => context.close());
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  closers.push(async () => expect(errors).toEqual([]));
  await page.goto(loginLink(h.home));
  await page.waitForURL(/\/\?notice=logged_in$/);
  return page;
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `dashboard-${name}.png`), fullPage: true });

describe.skipIf(!available)('the dashboard in a real browser', () => {
  it('shows two sessions colliding live, without a reload', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const h = await hub(home);
    const alice = await agent({ mcp: h.mcp, project: repo, name: 'alice' });
    const bob = await agent({ mcp: h.mcp, project: repo, name: 'bob' });
    const page = await dashboard(h);
    await alice.call('collab_claim', {
      files: ['src/a.ts', 'docs/parser.md'],
      intent: 'refactor the parser',
    });
    await page.locator('#projects a[href^="/projects/"]').first().click();
    await page.locator('li.claim', { hasText: 'refactor the parser' }).first().waitFor();
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 1;
    });
    expect(await page.locator('li.claim.conflict').count()).toBe(0);
    // Every page leads to the projects: this one is the current one, the overview one click away.
    expect(await page.locator('nav.projects a[aria-current="page"]').getAttribute('href')).toBe(
      new URL(page.url()).pathname,
    );
    expect(await page.locator('nav.projects a', { hasText: 'All' }).getAttribute('href')).toBe('/');

    await bob.call('collab_claim', { files: ['src/**'], intent: 'format everything' });
    await page.locator('li.claim.conflict', { hasText: 'format everything' }).waitFor({ timeout: 10_000 });
    await page.locator('#claims h2 .badge.conflict').waitFor();
    // A glob is drawn as one pattern under its folder, saying what it matches; a lone file as one line.
    const pattern = page.locator('#claims code.seg.glob');
    expect(await pattern.textContent()).toBe('**');
    expect(await pattern.getAttribute('title')).toBe('a pattern: everything under src/');
    expect(await page.locator('#claims .seg', { hasText: 'docs/parser.md' }).count()).toBe(1);
    // Only where the two claims meet: alice's docs/parser.md collides with nothing.
    const alices = page.locator('li.claim', { hasText: 'refactor the parser' });
    expect(await alices.count()).toBe(2);
    expect(await page.locator('li.claim.conflict', { hasText: 'refactor the parser' }).count()).toBe(1);
    expect(await page.locator('ul.conflicts li').first().textContent()).toMatch(/alice.*bob|bob.*alice/);
    expect(await page.locator('#feed li', { hasText: 'format everything' }).count()).toBe(1);
    // The activity list has the events a person cares about: not once more per notified session.
    await alice.call('collab_decision_add', {
      category: 'naming',
      title: 'Tabs, not spaces',
      description: 'x',
    });
    await page
      .locator('#feed li', { hasText: 'decided (naming): Tabs, not spaces' })
      .waitFor({ timeout: 10_000 });
    expect(await page.locator('#feed li[data-kind="notification"]').count()).toBe(0);
    // A broadcast reaches every other session as a notification, and is one line for the person.
    await alice.call('collab_message_send', { content: 'Lunch: pausing for an hour' });
    await page
      .locator('#feed li', { hasText: 'Lunch: pausing for an hour' })
      .first()
      .waitFor({ timeout: 10_000 });
    await page.waitForTimeout(500);
    expect(await page.locator('#feed li', { hasText: 'Lunch: pausing for an hour' }).count()).toBe(1);
    expect(await page.locator('#feed li[data-kind="notification"]').count()).toBe(0);
    // The same page: no reload happened.
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    await shot(page, 'board');
    const phone = await dashboard(h, 390);
    await phone.goto(page.url());
    await shot(phone, 'board-phone');
    // On a phone nothing scrolls sideways: tables are cards, every action on screen.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const act of await phone.locator('#sessions summary', { hasText: 'Act' }).all()) {
      const box = (await act.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }

    // A person releases a claim from the page; the holder is told.
    const line = page.locator('li.claim', { hasText: 'format everything' });
    await line.locator('summary').click();
    await line.locator('input[name="reason"]').fill('let alice finish first');
    await line.locator('button', { hasText: 'Release claim' }).click();
    await page.locator('.notice', { hasText: 'Claim released' }).waitFor();
    const told = await bob.call<{ notifications?: Array<{ type: string; reason: string }> }>(
      'collab_session_list',
    );
    expect(told.notifications?.find((n) => n.type === 'claim_released')?.reason).toBe(
      'let alice finish first',
    );

    // Times read at a glance ("12s ago"), exact on hover; an ended session is folded away.
    for (const time of await page.locator('#sessions time').all()) {
      expect(await time.textContent()).toMatch(/ ago$/);
      expect(await time.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    }
    await bob.call('collab_session_end', {});
    const folded = page.locator('#sessions details.ended');
    await folded.locator('summary', { hasText: '1 ended session' }).waitFor({ timeout: 10_000 });
    expect(await folded.locator('tr[data-session]').count()).toBe(1);
    expect(await page.locator('#sessions > div table tr[data-session]').count()).toBe(1);
  });

  it("shows the landing queue live: a landing, a refusal with the check's output, and both on the timeline", async () => {
    const home = tempDir('collab-home-');
    const seed = gitRepo({
      'src/a.ts': 'export const a = 1;\n',
      '.session-collab.yaml': 'land:\n  check: "echo \\"the check says <b>no</b>\\" >&2; test ! -e BROKEN"\n',
    });
    const bare = join(tempDir('collab-origin-'), 'app.git');
    git(tempDir(), 'clone', '-q', '--bare', seed, bare);
    const clone = (name: string, files: Record<string, string>) => {
      const dir = join(tempDir('collab-clone-'), name);
      git(tempDir(), 'clone', '-q', bare, dir);
      git(dir, 'switch', '-q', '-c', name);
      for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
      git(dir, 'add', '-A');
      git(dir, 'commit', '-qm', `work of ${name}`);
      return dir;
    };
    const aliceDir = clone('alice', { 'src/b.ts': 'export const b = 2;\n' });
    const bobDir = clone('bob', { BROKEN: 'yes\n' });
    const h = await hub(home);
    const alice = await agent({ mcp: h.mcp, project: aliceDir, name: 'alice' });
    const bob = await agent({ mcp: h.mcp, project: bobDir, name: 'bob' });
    await alice.call('collab_session_start', { name: 'alice', project_root: aliceDir });
    await bob.call('collab_session_start', { name: 'bob', project_root: bobDir });
    const page = await dashboard(h);
    await page.locator('#projects a[href^="/projects/"]').first().click();
    await page.locator('#landing').waitFor();
    expect(await page.locator('#landing').textContent()).toContain('Nothing is waiting to land.');
    const landed = await alice.call<{ state: string; commit: string }>('collab_land', { wait_seconds: 60 });
    expect(landed.state).toBe('landed');
    const refused = await bob.call<{ state: string }>('collab_land', { wait_seconds: 60 });
    expect(refused.state).toBe('rejected');
    // Without a reload: the outcomes arrive with the live feed.
    const ok = page.locator('#landing li[data-state="landed"]');
    await ok.waitFor({ timeout: 10_000 });
    expect(await ok.textContent()).toContain(landed.commit.slice(0, 12));
    const no = page.locator('#landing li[data-state="rejected"]');
    await no.waitFor({ timeout: 10_000 });
    expect(await no.textContent()).toContain('failed');
    await no.locator('details.check-output summary').click();
    // The check's output is text, never markup.
    expect(await no.locator('details.check-output pre').textContent()).toContain('the check says <b>no</b>');
    expect(await no.locator('details.check-output pre b').count()).toBe(0);
    expect(await page.locator('#timeline .mark.kind-landing').count()).toBe(2);
    await shot(page, 'landing');
  });

  it('shows the conflicts two clones will meet at merge, by pair, file, function and lines', async () => {
    const home = tempDir('collab-home-');
    const upstream = gitRepo({
      'src/auth.py': 'def login(user):\n    pass\n\n\ndef logout(user):\n    pass\n',
    });
    const clone = (name: string) => {
      const dir = join(tempDir('collab-clone-'), name);
      git(upstream, 'clone', '-q', upstream, dir);
      return dir;
    };
    const aliceDir = clone('alice');
    const bobDir = clone('bob');
    const h = await hub(home);
    const alice = await agent({ mcp: h.mcp, project: aliceDir, name: 'alice' });
    const bob = await agent({ mcp: h.mcp, project: bobDir, name: 'bob' });
    await alice.call('collab_session_start', { name: 'alice', project_root: aliceDir });
    await bob.call('collab_session_start', { name: 'bob', project_root: bobDir });
    // Both change login's body in their own clone; nobody claimed anything.
    writeFileSync(
      join(aliceDir, 'src/auth.py'),
      'def login(user):\n    return user.token\n\n\ndef logout(user):\n    pass\n',
    );
    writeFileSync(
      join(bobDir, 'src/auth.py'),
      'def login(user):\n    return None\n\n\ndef logout(user):\n    pass\n',
    );
    await alice.call('collab_check', {});
    await bob.call('collab_check', {});
    const page = await dashboard(h);
    // The repository is one project, whatever copies its sessions work in.
    expect(await page.locator('#projects a[href^="/projects/"]').count()).toBe(1);
    await page.locator('#projects a[href^="/projects/"]').first().click();
    // Its page names it once, and each session's copy: the folder and the machine.
    expect(await page.locator('h1').count()).toBe(1);
    const rows = page.locator('#sessions tr[data-session]');
    expect(await rows.count()).toBe(2);
    for (const [name, dir] of [
      ['alice', aliceDir],
      ['bob', bobDir],
    ] as const) {
      const copy = rows.filter({ hasText: name }).locator('td.path');
      expect(await copy.count()).toBe(1);
      expect(await copy.textContent()).toBe(`${dir}on ${hostname()}`);
    }
    const line = page.locator('li[data-predicted="textual"]');
    await line.waitFor({ timeout: 10_000 });
    const text = (await line.textContent()) ?? '';
    expect(text).toMatch(/alice and bob|bob and alice/);
    expect(text).toContain('src/auth.py');
    expect(text).toContain('(login)');
    expect(text).toContain('2 / 2');
    // Each side's lines there, one click away.
    await line.locator('details.excerpts summary').click();
    const shown = (await line.locator('details.excerpts pre').allTextContents()).join('\n');
    expect(shown).toContain('> +    return user.token');
    expect(shown).toContain('> +    return None');
    expect(await page.locator('h3', { hasText: 'Predicted at merge' }).count()).toBe(1);
    await shot(page, 'predicted');
  });

  it('marks a session whose turn ended idle with what it has not been told, and shows how each message reached it', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const h = await hub(home);
    const alice = await agent({ mcp: h.mcp, project: repo, name: 'alice' });
    await alice.call('collab_session_start', { name: 'alice', project_root: repo });
    // A Claude Code session of this machine, through its hooks: its turn ends with nothing new.
    const client = await hookClient({ cwd: repo, home });
    closers.push(() => client.close());
    const startOut = JSON.parse(
      (await client.hook('session-start', hookFixture('claude-code/session-start', repo, 'C-1'))).stdout,
    );
    const id = /session_id ([0-9a-f-]{36})/.exec(startOut.hookSpecificOutput.additionalContext)![1]!;
    await client.hook('turn-end', hookFixture('claude-code/stop', repo, 'C-1'));
    const page = await dashboard(h);
    await page.locator('#projects a[href^="/projects/"]').first().click();
    const row = page.locator(`tr[data-session="${id}"]`);
    await row.locator('.badge.idle').waitFor({ timeout: 10_000 });
    expect(await row.locator('.badge.idle').textContent()).toBe('idle');
    // A message to it while it is idle: the page says so at once.
    await alice.call('collab_message_send', { to_session_id: id, content: 'are you there?' });
    await row.locator('.badge.idle', { hasText: 'idle, 1 unread' }).waitFor({ timeout: 10_000 });
    const message = page.locator('li[data-message]', { hasText: 'are you there?' });
    expect(await message.locator('.receipts').textContent()).toContain('not delivered yet');
    // Its person types: delivered with the prompt, and no longer idle.
    await client.hook('user-prompt-submit', hookFixture('claude-code/user-prompt-submit', repo, 'C-1'));
    await page.reload();
    expect(await page.locator(`tr[data-session="${id}"] .badge.idle`).count()).toBe(0);
    expect(
      await page
        .locator('li[data-message]', { hasText: 'are you there?' })
        .locator('.receipts')
        .textContent(),
    ).toMatch(/delivered .* with a prompt, not acted since/);
    // On the timeline: the delivery, on its lane, saying how.
    expect(await page.locator('#timeline circle.kind-delivered title').first().textContent()).toMatch(
      /^told .*: prompt: alice: are you there\?/,
    );
    await shot(page, 'receipts');
  });

  it('answers a question from the page, and the answer reaches the asking client', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const h = await hub(home);
    const asker = await agent({ mcp: h.mcp, project: repo, name: 'asker' });
    const page = await dashboard(h);
    const asked = asker.client.callTool(
      {
        name: 'ask_human',
        arguments: {
          question: 'Deploy to staging now?',
          options: ['yes', 'not yet'],
          label: 'release 2.1',
          urgency: 'high',
          wait_seconds: 60,
        },
      },
      { timeout: 90_000 },
    );
    const card = page.locator('article.question', { hasText: 'Deploy to staging now?' });
    await card.waitFor({ timeout: 10_000 });
    // Its label and its urgency are shown with it.
    expect(await card.locator('.label').textContent()).toBe('release 2.1');
    expect(await card.locator('.badge.urgency-high').textContent()).toBe('urgent');
    await shot(page, 'overview-question');
    await card.locator('button', { hasText: 'not yet' }).click();
    await page.locator('.notice', { hasText: 'Answer sent' }).waitFor();
    const result = (await asked).structuredContent as {
      status: string;
      answer: string;
      answered_via: string;
    };
    expect(result).toMatchObject({ status: 'answered', answer: 'not yet', answered_via: 'web' });
    await page.locator('article.question').first().waitFor({ state: 'detached' });
  });

  it('misses no event across a dropped stream: the hub restarts while a stdio session works', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const first = await hub(home);
    const port = new URL(first.url).port;
    const a = await agent({ mcp: first.mcp, project: repo, name: 'alpha' });
    await a.call('collab_claim', { files: ['src/start.ts'], intent: 'start' });
    const page = await dashboard(first);
    await page.locator('#projects a[href^="/projects/"]').first().click();
    await page.locator('li.claim', { hasText: 'start' }).waitFor();

    await first.stop();
    await page.locator('#live:not(.on)').waitFor();
    // Meanwhile another agent, on stdio, keeps working on the same database.
    const other = await connectStdio({ cwd: repo, home, name: 'stdio-agent' });
    closers.push(() => other.close());
    for (let i = 1; i <= 5; i++)
      await other.call('collab_claim', { files: [`src/offline-${i}.ts`], intent: `offline ${i}` });
    await hub(home, `127.0.0.1:${port}`);
    for (let i = 6; i <= 8; i++)
      await other.call('collab_claim', { files: [`src/online-${i}.ts`], intent: `online ${i}` });

    await page.locator('#feed li', { hasText: 'online 8' }).waitFor({ timeout: 15_000 });
    const ids = await page
      .locator('#feed li')
      .evaluateAll((items) => items.map((li) => Number((li as HTMLElement).dataset.event)));
    expect(new Set(ids).size).toBe(ids.length);
    const feed = await page.locator('#feed').textContent();
    for (let i = 1; i <= 5; i++) expect(feed).toContain(`offline ${i}`);
    const ascending = [...ids].reverse();
    expect(ascending).toEqual([...ascending].sort((x, y) => x - y));
    await page.locator('li.claim', { hasText: 'online 8' }).waitFor();
  });

  it('renders every free-text field as text, never as markup', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const h = await hub(home);
    const attack = (where: string) =>
      `<img src=x onerror="window.xss='${where}'"><script>window.xss='${where}'</script>`;
    const evil = await agent({
      mcp: h.mcp,
      project: repo,
      name: 'evil',
      headers: { 'x-collab-session-name': attack('name') },
    });
    await evil.call('collab_session_start', { name: attack('session'), project_root: repo });
    await evil.call('collab_claim', { files: ['src/x.ts'], intent: attack('intent') });
    // Long words with nowhere to break: a path, an intent, a line of content.
    const long = `src/${'deep/'.repeat(40)}${'a'.repeat(200)}.ts`;
    await evil.call('collab_claim', { files: [long], intent: 'x'.repeat(500) });
    await evil.call('collab_message_send', { content: attack('message') });
    await evil.call('collab_decision_add', { title: attack('decision'), description: attack('description') });
    const work = await evil.call<{ id: string }>('submit_work', {
      type: 'code',
      phase: 'review',
      title: attack('work-title'),
      content: `${attack('work-content')}\n${'y'.repeat(3000)}`,
    });
    void evil.client
      .callTool(
        {
          name: 'ask_human',
          arguments: { question: attack('question'), options: [attack('option')], wait_seconds: 20 },
        },
        { timeout: 60_000 },
      )
      .catch(() => {});

    const page = await dashboard(h);
    await page.locator('article.question').waitFor();
    await shot(page, 'overview');
    const xss = () => page.evaluate(() => (window as unknown as { xss?: string }).xss);
    expect(await xss()).toBeUndefined();
    expect(await page.locator('article.question blockquote').textContent()).toContain('<img src=x onerror=');
    await page.locator('#projects a[href^="/projects/"]').first().click();
    await page.locator('#messages li').waitFor();
    for (const where of ['session', 'intent', 'message', 'decision', 'description', 'work-title'])
      expect(await page.locator('main').textContent(), where).toContain(`window.xss='${where}'`);
    expect(await page.locator('main img, main script').count()).toBe(0);
    // Escaped, not merely blocked by the Content-Security-Policy: the markup is in the page as text.
    expect(await page.locator('main').innerHTML()).toContain('&lt;img src=x onerror=');
    expect(await xss()).toBeUndefined();
    // The timeline draws the session's name as text too, inside its SVG.
    expect(await page.locator('#timeline text.name').first().textContent()).toContain('<img src=x');
    expect(await page.locator('#timeline img, #timeline script, #timeline foreignObject').count()).toBe(0);
    // On a phone the long words wrap: nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${h.url}/work/${work.id}`);
    expect(await page.locator('pre.conversation').textContent()).toContain("window.xss='work-content'");
    await shot(page, 'work');
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await xss()).toBeUndefined();
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });
});
