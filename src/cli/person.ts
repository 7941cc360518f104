import { App } from '../app/app.js';
import { inline } from '../core/fence.js';
import { describeAge } from '../core/liveness.js';
import { PersonActions } from '../features/hub/person-actions.js';
import {
  claimByReference,
  deadSessions,
  projectOfFolder,
  sessionByReference,
} from '../features/sessions/references.js';
import { bold, dim, green, printJson, terminalUser, yellow } from './format.js';

/**
 * What the person in charge does from a terminal: message a session, release a claim, end a
 * session, clean up after dead ones. Each is recorded as done by that person (the sessions are told
 * who and why).
 */
interface PersonOptions {
  json?: boolean;
  /** Look beyond the project of the working folder. */
  all?: boolean;
  reason?: string;
}

async function withPerson<T>(fn: (app: App, person: PersonActions) => Promise<T>): Promise<T> {
  const app = await App.open();
  try {
    return await fn(app, new PersonActions(app, { name: `${terminalUser()} (terminal)`, via: 'terminal' }));
  } finally {
    await app.close();
  }
}

/** The project of the working folder, when it is one the store knows (null: every project). */
function hereProject(app: App, all: boolean | undefined): Promise<string | null> {
  return all ? Promise.resolve(null) : projectOfFolder(app, process.cwd());
}

/** `session-collab message <session> <text…>`: a direct message, seen with its next tool call or prompt. */
export async function messageCommand(
  reference: string,
  words: string[],
  options: PersonOptions,
): Promise<void> {
  await withPerson(async (app, person) => {
    const session = await sessionByReference(app, reference, await hereProject(app, options.all));
    const sent = await person.message(session.id, words.join(' '));
    if (options.json) printJson({ ...sent, session_id: session.id, session: session.name });
    else
      console.log(
        `${green('Sent')} to "${inline(session.name, 60)}" (${session.id.slice(0, 8)}); it sees it with its next tool call or prompt.`,
      );
  });
}

/** `session-collab release <claim>`: releases any session's claim; that session is told. */
export async function releaseCommand(reference: string, options: PersonOptions): Promise<void> {
  await withPerson(async (app, person) => {
    const claim = await claimByReference(app, reference);
    const released = await person.releaseClaim(
      claim.id,
      options.reason ?? 'released by the person in charge',
    );
    if (options.json) printJson(released);
    else
      console.log(
        `${green('Released')} ${inline(released.files.join(', '), 200)} (claim ${claim.id.slice(0, 8)} of "${inline(claim.session_name, 60)}"); that session is told.`,
      );
  });
}

/** `session-collab end <session>`: ends a session and releases its claims. */
export async function endCommand(reference: string, options: PersonOptions): Promise<void> {
  await withPerson(async (app, person) => {
    const session = await sessionByReference(app, reference, await hereProject(app, options.all));
    const ended = await person.endSession(session.id, options.reason ?? 'ended by the person in charge');
    if (options.json) printJson({ ...ended, session: session.name });
    else
      console.log(
        `${green('Ended')} "${inline(session.name, 60)}" (${session.id.slice(0, 8)}); ${ended.released} claim(s) released.`,
      );
  });
}

/**
 * `session-collab clean`: ends the sessions whose process is gone or that fell silent (they still
 * count as active in the store), releasing their claims. `--dry-run` only lists them.
 */
export async function cleanCommand(options: PersonOptions & { dryRun?: boolean }): Promise<void> {
  await withPerson(async (app, person) => {
    const project = await hereProject(app, options.all);
    const now = app.now();
    const dead = await deadSessions(app, project);
    const ended: Array<{ session_id: string; name: string; released: number; silent_since: string }> = [];
    for (const s of dead) {
      const silent = describeAge(s.last_heartbeat, now);
      const released = options.dryRun
        ? s.active_claims
        : (await person.endSession(s.id, `its process is gone or it fell silent (last heard ${silent})`))
            .released;
      ended.push({
        session_id: s.id,
        name: s.name,
        released,
        silent_since: new Date(s.last_heartbeat).toISOString(),
      });
    }
    if (options.json) {
      printJson({ dry_run: options.dryRun === true, sessions: ended });
      return;
    }
    if (ended.length === 0) {
      console.log(
        `No dead sessions${project ? ' in this project' : ''}. ${dim('(--all for every project)')}`,
      );
      return;
    }
    for (const e of ended)
      console.log(
        `${options.dryRun ? yellow('would end') : green('ended')} ${bold(inline(e.name, 60))} ${dim(e.session_id.slice(0, 8))}: ${e.released} claim(s)${options.dryRun ? ' held' : ' released'}, last heard ${describeAge(Date.parse(e.silent_since), now)}`,
      );
    if (options.dryRun) console.log(dim('Run without --dry-run to end them.'));
  });
}
