import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, chromiumFor, launchChromium } from '../helpers/browser.js';
import { CLI, requireBuild } from '../helpers/stdio.js';
import { tempDir } from '../helpers/temp.js';

const available = chromiumFor('test/e2e/demo-browser.test.ts');
const WIDTHS = [1280, 390] as const;

let browser: Browser;
let demo: ChildProcess;
let output = '';
let exited: Promise<number | null>;

beforeAll(async () => {
  if (!available) return;
  requireBuild();
  demo = spawn(process.execPath, [CLI, 'demo', '--fast', '--linger', '300'], {
    env: { ...process.env, SESSION_COLLAB_HOME: tempDir('collab-home-'), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  exited = new Promise((resolve) => demo.once('exit', (code) => resolve(code)));
  demo.stdout!.on('data', (d) => {
    output += d;
  });
  demo.stderr!.on('data', (d) => {
    output += d;
  });
  const deadline = Date.now() + 60_000;
  while (!output.includes('That is the whole demo.')) {
    if (Date.now() > deadline || demo.exitCode !== null)
      throw new Error(`the demo did not finish:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  if (demo && demo.exitCode === null) {
    demo.kill('SIGTERM');
    // Ctrl-C or SIGTERM ends the dashboard's wait; the demo removes its folders and exits cleanly.
    expect(await exited).toBe(0);
    expect(output).toContain('Stopped.');
  }
});

/** Every page fits the screen: nothing scrolls sideways, and nothing the script does fails. */
async function fits(page: Page, width: number) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
}

describe.skipIf(!available)('the demo, watched in a real browser', () => {
  it('reads at a glance on a laptop and a phone: the timeline, the review with its diff, every page', async () => {
    const link = /Watch them on the dashboard: (\S+)/.exec(output)![1]!;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(link);
    await page.waitForURL(/\/\?notice=logged_in$/);
    const pages: Record<string, string> = { overview: page.url() };

    await page.locator('#projects a[href^="/projects/"]').first().click();
    await page.locator('#timeline svg.timeline').waitFor();
    pages.board = page.url();
    // A lane per agent, in the order they started; no lane for a hook run (carol's hook is carol).
    const names = await page
      .locator('#timeline g.lane')
      .evaluateAll((gs) => gs.map((g) => g.getAttribute('data-name')));
    expect(names).toEqual(['alice', 'bob', 'carol']);
    const kinds = async (name: string) =>
      page
        .locator(`#timeline g.lane[data-name="${name}"] .mark`)
        .evaluateAll((ms) => [...new Set(ms.map((m) => m.getAttribute('data-kind')))].sort());
    expect(await kinds('alice')).toEqual(['claim', 'commit', 'question', 'review']);
    expect(await kinds('bob')).toEqual(['claim', 'message']);
    expect(await kinds('carol')).toEqual(['edit']);
    // Where two lanes met: bob's src/** over alice's src/auth.ts, drawn and said in words.
    expect(await page.locator('#timeline g.meeting[data-meeting="alice|bob"]').count()).toBe(1);
    expect(await page.locator('#timeline li[data-meeting="alice|bob"]').textContent()).toMatch(
      /alice and bob both on src\/auth\.ts/,
    );
    // The commit sits on alice's lane only: she held the file it changed; all three shared the folder.
    expect(await page.locator('#timeline [data-kind="commit"]').count()).toBe(1);
    expect(await page.locator('#timeline [data-kind="commit"] title').textContent()).toMatch(
      /Login with JWT/,
    );
    // Relative times everywhere a person looks.
    expect(await page.locator('#timeline h2 small').textContent()).toMatch(/^since 1 min ago$/);
    for (const time of await page.locator('#sessions time, #feed time').all())
      expect(await time.textContent()).toMatch(/ ago$/);

    await page.locator('#reviews a', { hasText: 'Login with JWT' }).click();
    await page.locator('#content .code').waitFor();
    pages.work = page.url();
    // Version 2 against version 1: the changed line removed and added, numbered as it reads now.
    expect(await page.locator('#content h2').textContent()).toBe('Changes since version 1');
    expect(await page.locator('#content .ln.del .src').allTextContents()).toEqual(['  return sign(user);']);
    expect(await page.locator('#content .ln.add .src').allTextContents()).toEqual([
      '  return sign(user.trim());',
    ]);
    expect(await page.locator('#content .ln.add').getAttribute('data-line')).toBe('2');
    // Bob's note on version 2 sits under line 1; his version-1 suggestion is listed apart, with its line.
    const atLine = page.locator('#content .ln[data-line="1"] + .at-line .suggestion');
    expect(await atLine.locator('strong').textContent()).toBe('Say what the token is');
    const earlier = page.locator('#suggestions .suggestion');
    expect(await earlier.locator('strong').textContent()).toBe('Trim the name before signing');
    expect(await earlier.textContent()).toContain('line 2 of version 1');
    expect(await page.locator('#reviews .badge.verdict-approve').count()).toBe(1);
    // It belongs to its repository: the navigation marks that project, the link leads back.
    expect(await page.locator('nav.projects a[aria-current="page"]').getAttribute('href')).toBe(
      new URL(pages.board).pathname,
    );

    pages.missing = new URL('/projects/no-such-project', page.url()).href;
    pages.expired = new URL('/login?code=used-or-made-up', page.url()).href;
    for (const width of WIDTHS)
      for (const [name, url] of Object.entries(pages)) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(url);
        await fits(page, width);
        await page.screenshot({
          path: join(ARTIFACTS, `demo-${name}${width === 390 ? '-phone' : ''}.png`),
          fullPage: true,
        });
      }
    // On a phone every action is on screen: each session's menu, each question's answer.
    for (const act of await page.locator('summary').all()) {
      const box = await act.boundingBox();
      if (box) expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
