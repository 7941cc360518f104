import type { Context, Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import type { App } from '../../app/app.js';
import { CollabError } from '../../core/errors.js';
import { COOKIE_TTL_MS } from '../../features/hub/dashboard-logins.js';
import { readBody } from '../guards.js';
import { DASHBOARD_CSS, DASHBOARD_JS } from './assets.js';
import type { EventFeed } from './event-feed.js';
import { html } from './html.js';
import { boardPage, messagePage, overviewPage, type PageContext } from './pages.js';
import { workPage } from './work-page.js';

const COOKIE = 'sc_dashboard';
/** Events a reconnecting page may have missed and still be caught up with, rather than reloaded. */
const REPLAY_MAX = 2_000;
/** Open live streams at most: each holds a connection. */
const MAX_STREAMS = 200;
/** Events waiting for one slow stream at most; past it the page is told to reload. */
const QUEUE_MAX = 5_000;
const FORM_MAX_BYTES = 64 * 1024;

/**
 * Headers of every dashboard response: a strict Content-Security-Policy, no caching, no referrer to
 * other sites (`no-referrer` would make the browser send `Origin: null` on the page's own forms).
 */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

export interface DashboardDeps {
  app: App;
  feed: EventFeed;
  maxBody: number;
}

const NOTICES: Record<string, string> = {
  answered: 'Answer sent: it reaches the session that asked.',
  released: 'Claim released; its session was told.',
  messaged: 'Message sent; the session sees it with its next tool call or prompt.',
  ended: 'Session ended; its claims were released.',
  logged_in: 'Logged in.',
};

/** A path of this site to return to (never another site). */
function safeBack(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])[\w\-./?=&%]*$/.test(value) && value.length < 500
    ? value
    : '/';
}

/**
 * The dashboard: pages of every project and one project's board, the live event stream, and the
 * actions a person takes (answer, release, message, end). Reached with a cookie got from a one-time
 * login link (`session-collab dashboard`); every change carries the cookie's CSRF token.
 */
/** Projects the navigation names at most (the overview lists them all). */
const NAV_PROJECTS = 12;

export function dashboardRoutes(web: Hono, deps: DashboardDeps): void {
  const { app, feed } = deps;
  const hub = app.hub;
  let streams = 0;

  web.use('*', async (c, next) => {
    await next();
    if (c.req.path !== '/mcp') for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(k, v);
  });

  web.get('/assets/dashboard.js', (c) =>
    c.body(DASHBOARD_JS, 200, { 'content-type': 'text/javascript; charset=utf-8' }),
  );
  web.get('/assets/dashboard.css', (c) =>
    c.body(DASHBOARD_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }),
  );

  web.get('/favicon.ico', (c) => c.body(null, 204));

  web.get('/login', async (c) => {
    const code = c.req.query('code') ?? '';
    const login = code ? await hub.logins.exchange(code) : null;
    if (!login)
      return c.html(
        messagePage(
          'This login link does not work',
          html`<p>A login link works once, for 10 minutes. Get a new one on the machine that runs the hub:</p><pre>session-collab dashboard</pre>`,
        ),
        401,
      );
    setCookie(c, COOKIE, login.cookie, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      // Behind a TLS proxy the hub sees http: the proxy's word counts.
      secure: new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https',
      maxAge: Math.floor(COOKIE_TTL_MS / 1000),
    });
    return c.redirect('/?notice=logged_in', 303);
  });

  /** The CSRF token of the request's cookie, or a response that asks to log in. */
  const session = async (c: Context): Promise<string | Response> => {
    const cookie = getCookie(c, COOKIE);
    const csrf = cookie ? await hub.logins.csrfOf(cookie) : null;
    if (csrf) return csrf;
    return c.html(
      messagePage(
        'Log in to the dashboard',
        html`<p>Open the one-time link that this command prints, on the machine that runs the hub:</p><pre>session-collab dashboard</pre>`,
      ),
      401,
    );
  };

  const pageContext = async (c: Context, csrf: string, project: string | null): Promise<PageContext> => {
    const after = await feed.lastId();
    const notice = c.req.query('notice');
    const recent = (await feed.since(Math.max(0, after - 200), 200))
      .filter((e) => project === null || e.project_id === project)
      .slice(-50);
    // Every page leads to every project: the busiest first (live sessions), at most NAV_PROJECTS.
    const nav = (await hub.views.projects())
      .filter((p) => p.sessions > 0 || p.questions > 0 || p.id === project)
      .slice(0, NAV_PROJECTS)
      .map((p) => ({ id: p.id, label: p.root, questions: p.questions }));
    return {
      csrf,
      back: c.req.path,
      after,
      project,
      notice: notice && Object.hasOwn(NOTICES, notice) ? NOTICES[notice]! : null,
      recent,
      nav,
    };
  };

  web.get('/', async (c) => {
    const csrf = await session(c);
    if (csrf instanceof Response) return csrf;
    return c.html(
      overviewPage(
        await hub.views.projects(),
        await hub.views.questions(null),
        await hub.views.realms(),
        await pageContext(c, csrf, null),
      ),
    );
  });

  web.get('/projects/:id', async (c) => {
    const csrf = await session(c);
    if (csrf instanceof Response) return csrf;
    const board = await hub.views.board(c.req.param('id'));
    if (!board) return c.html(messagePage('No such project', html`<p><a href="/">All projects</a></p>`), 404);
    return c.html(boardPage(board, await pageContext(c, csrf, board.project.id)));
  });

  web.get('/work/:id', async (c) => {
    const csrf = await session(c);
    if (csrf instanceof Response) return csrf;
    const work = await hub.views.work(c.req.param('id'));
    if (!work)
      return c.html(messagePage('No such work item', html`<p><a href="/">All projects</a></p>`), 404);
    return c.html(workPage(work, await pageContext(c, csrf, work.project.id)));
  });

  web.get('/events', async (c) => {
    const csrf = await session(c);
    if (csrf instanceof Response) return csrf;
    if (streams >= MAX_STREAMS) return c.text('Too many live streams; close some dashboard tabs.', 503);
    streams += 1;
    const project = c.req.query('project') || null;
    // An event id as the stream gave it (digits); anything else is a stream from now.
    const given = c.req.header('last-event-id') ?? c.req.query('after') ?? '';
    const resumeFrom = /^\d{1,15}$/.test(given) ? Number(given) : Number.NaN;
    // The live feed hands out the ids above `feed.position` at the time of subscribing, the replay
    // those up to it; live events that come while the replay is read wait for it, so each id is sent
    // once, in order.
    const queue: Array<{ id: number; data: string }> = [];
    const resuming = Number.isSafeInteger(resumeFrom) && resumeFrom >= 0;
    // The page has every event up to where it resumes: none of those again, even from the live feed.
    let queued = resuming ? resumeFrom : -1;
    let overflow = false;
    let wake: (() => void) | null = null;
    const push = (e: { id: number; project_id: string | null }) => {
      if (e.id <= queued) return;
      queued = e.id;
      if (project !== null && e.project_id !== project) return;
      if (queue.length >= QUEUE_MAX) overflow = true;
      else queue.push({ id: e.id, data: JSON.stringify(e) });
      wake?.();
    };
    let held: Array<{ id: number; project_id: string | null }> | null = resuming ? [] : null;
    const unsubscribe = feed.subscribe((e) => (held ? held.push(e) : push(e)));
    let reset = false;
    if (resuming) {
      const upTo = feed.position;
      try {
        // Events purged since the page saw them cannot be replayed, and an id past the newest is
        // not one of this feed's (a log started over, or made up): the page reloads instead.
        if (
          resumeFrom > (await feed.lastId()) ||
          (resumeFrom + 1 < (await feed.oldestId()) && resumeFrom < upTo)
        )
          reset = true;
        else {
          const missed = (await feed.since(resumeFrom, REPLAY_MAX + 1)).filter((e) => e.id <= upTo);
          if (missed.length > REPLAY_MAX) reset = true;
          else for (const e of missed) push(e);
        }
      } catch (error) {
        unsubscribe();
        streams -= 1;
        throw error;
      }
      for (const e of held ?? []) push(e);
      held = null;
    }
    return streamSSE(c, async (stream) => {
      let closed = false;
      stream.onAbort(() => {
        closed = true;
        wake?.();
      });
      try {
        await stream.writeSSE({ event: 'hello', data: '{}', retry: 1000 });
        if (reset) {
          await stream.writeSSE({ event: 'reset', data: '{}' });
          return;
        }
        while (!closed) {
          while (queue.length > 0 && !closed) {
            const next = queue.shift()!;
            await stream.writeSSE({ event: 'change', id: String(next.id), data: next.data });
          }
          // A reader too slow for the feed starts over from a fresh page.
          if (overflow) {
            await stream.writeSSE({ event: 'reset', data: '{}' });
            break;
          }
          if (closed) break;
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, 15_000).unref();
          });
          wake = null;
          if (queue.length === 0 && !closed) await stream.write(': keepalive\n\n');
        }
      } finally {
        unsubscribe();
        streams -= 1;
      }
    });
  });

  /** A change a person makes: its form checked (CSRF), done, and the page it came from shown again. */
  const action = (path: string, act: (form: Record<string, string>) => Promise<string>) =>
    web.post(path, async (c) => {
      const csrf = await session(c);
      if (csrf instanceof Response) return csrf;
      const text = await readBody(c.req.raw, FORM_MAX_BYTES);
      if (text === null) return c.text('Form too large.', 413);
      const form = Object.fromEntries(new URLSearchParams(text)) as Record<string, string>;
      if (form.csrf !== csrf)
        return c.html(messagePage('This form has expired', html`<p>Reload the page and try again.</p>`), 403);
      const back = safeBack(form.back);
      try {
        const notice = await act(form);
        // The page it came from, its own notice (or error) replaced by this one.
        const to = new URL(back, 'http://dashboard.invalid');
        to.searchParams.delete('notice');
        to.searchParams.delete('error');
        to.searchParams.set('notice', notice);
        return c.redirect(`${to.pathname}${to.search}`, 303);
      } catch (error) {
        // Said to a person: what failed, without the hints written for agents (which name tools).
        const code = error instanceof CollabError ? error.code : null;
        const status = code?.endsWith('_NOT_FOUND') ? 404 : code === 'INVALID_INPUT' ? 400 : 409;
        const message =
          error instanceof CollabError
            ? `${error.message}${status === 404 ? ' It may be gone already: reload the page to see what is there now.' : ''}`
            : 'Something went wrong; see logs/collab.log.';
        if (!(error instanceof CollabError))
          app.log.error('dashboard.action_failed', { path, message: (error as Error).message });
        // Shown on a page of its own, never carried in a link (a crafted link could show anything).
        return c.html(
          messagePage('That did not work', html`<p>${message}</p><p><a href="${back}">Back</a></p>`),
          status,
        );
      }
    });

  action('/actions/answer', async (form) => {
    const outcome = await hub.dashboardPerson.answer(form.question_id ?? '', form.answer ?? '');
    if (!outcome.won)
      throw new CollabError(
        'INVALID_INPUT',
        `That question is already ${outcome.question.status}.`,
        'Nothing to do.',
      );
    return 'answered';
  });
  action('/actions/release', async (form) => {
    await hub.dashboardPerson.releaseClaim(form.claim_id ?? '', form.reason ?? '');
    return 'released';
  });
  action('/actions/message', async (form) => {
    await hub.dashboardPerson.message(form.session_id ?? '', form.text ?? '');
    return 'messaged';
  });
  action('/actions/end', async (form) => {
    await hub.dashboardPerson.endSession(form.session_id ?? '', form.reason ?? '');
    return 'ended';
  });
}
