import type { App } from '../app/app.js';
import { telegramSettings } from '../app/telegram-config.js';
import type { AuditTrail } from '../features/human/audit-trail.js';
import { reidentifyProjects } from '../features/sessions/project-identities.js';
import { UnseenWrites } from '../features/watch/unseen-writes.js';
import type { Selection } from '../mcp/registry.js';

/**
 * What a serving process runs besides its requests. `stop` ends the agent CLIs it runs (recorded
 * cancelled with `reason`) and gives Telegram up to 3 s to let its lease go.
 */
export interface BackgroundWork {
  /** The sessions' audit trail, once the human toolset has loaded (null before, or without it). */
  audit(): AuditTrail | null;
  stop(reason: string): Promise<void>;
}

/** How often a serving process looks for files edit hooks saw change. */
const CHANGES_POLL_MS = 500;
/** How often a serving process looks for requests to land of this machine (its own are landed at once). */
const LANDINGS_POLL_MS = 2_000;
/** How often a serving process looks for agent runs a killed process of this machine left. */
const LEFT_RUNS_POLL_MS = 30_000;

/**
 * The housekeeping of a serving process (`serve`, `hub`): purges when due (any process's purge
 * counts), the database's quick check off the request path, and with the human toolset the audit
 * trail and, when a bot is configured, Telegram (this process polls it when no other does); and
 * the agent CLIs a server of this machine left running when it was killed are ended (any serving
 * process does it, whatever its toolsets: the next one to start). Projects of this machine still
 * keyed by a clone's git folder are named by their repository, merging clones of one repository.
 * The files edit hooks saw change are read (hunks and symbols). Held files are watched for writes
 * no hook saw.
 */
export function startBackgroundWork(app: App, selection: Selection): BackgroundWork {
  const purge = () => {
    app.maintenance
      .purgeIfDue()
      .catch((error: Error) => app.log.warn('purge.failed', { message: error.message }));
  };
  const timers = [
    setTimeout(purge, 2_000),
    setTimeout(() => {
      reidentifyProjects(app).catch((error: Error) =>
        app.log.warn('project.reidentify_failed', { message: error.message }),
      );
    }, 2_500),
    // A file damaged on disk (not at its header, which opening checks) is found here; from then on
    // writes are refused with what to do.
    setTimeout(async () => {
      try {
        const result = await app.maintenance.verifyIfDue();
        if (result && !result.ok) app.log.error('database.damaged', { detail: result.detail.slice(0, 500) });
      } catch (error) {
        app.log.warn('database.verify_failed', { message: (error as Error).message });
      }
    }, 1_000),
  ];
  // The agent runs' service ends what a killed server left when it is made (here, or by a call).
  timers.push(
    setTimeout(() => {
      try {
        void app.agents;
      } catch (error) {
        app.log.warn('agent.recover_failed', { message: (error as Error).message });
      }
    }, 1_500),
  );
  // And again now and then: a process of this machine killed while this one runs (a `serve` in its
  // own process, another home's server) leaves its CLIs running past their time otherwise.
  const leftRuns = setInterval(() => {
    app.agents
      .endLeft()
      .catch((error: Error) => app.log.warn('agent.recover_failed', { message: error.message }));
  }, LEFT_RUNS_POLL_MS);
  const interval = setInterval(purge, app.config.purge_interval_minutes * 60_000);
  // What edit hooks of this machine's sessions saw change is read here (git and the parser have no
  // place in a hook): any serving process of the machine takes a request, one at a time.
  let reading = false;
  const readChanges = setInterval(() => {
    if (reading) return;
    reading = true;
    app.changes
      .refreshRequested()
      .catch((error: Error) => app.log.warn('changes.refresh_failed', { message: error.message }))
      .finally(() => {
        reading = false;
      });
  }, CHANGES_POLL_MS);
  // The landing queues: requests of this machine's copies are landed by a serving process here.
  const landings = setInterval(() => {
    app.landing
      .driveHere()
      .catch((error: Error) => app.log.warn('landing.drive_failed', { message: error.message }));
  }, LANDINGS_POLL_MS);
  for (const t of [...timers, interval, readChanges, landings, leftRuns]) t.unref();
  // Writes to held files that no hook saw (one serving process of the machine watches).
  const unseen = new UnseenWrites(app, app.notifications);
  unseen.start();

  let audit: AuditTrail | null = null;
  let telegram: Promise<{ stop(): Promise<void> } | null> = Promise.resolve(null);
  if (selection.toolsets.some((t) => t.id === 'human')) {
    telegram = (async () => {
      const human = app.human;
      audit = human.audit;
      await audit?.archiveStale();
      try {
        const settings = telegramSettings(app.config);
        if (!settings.bot_token) return null;
        const { startTelegram } = await import('../features/human/telegram-channel.js');
        return await startTelegram(app, human, settings);
      } catch (error) {
        app.log.warn('telegram.start_failed', { message: (error as Error).message });
        return null;
      }
    })().catch((error: Error) => {
      app.log.warn('human.start_failed', { message: error.message });
      return null;
    });
  }
  return {
    audit: () => audit,
    async stop(reason) {
      for (const t of [...timers, interval, readChanges, landings, leftRuns]) clearTimeout(t);
      app.made('landing')?.stop();
      await unseen.stop();
      // This process's own runs end with it (when it has any: only a service made has runs).
      await app.made('agents')?.stopAll(`its server stopped (${reason})`);
      const stopped = telegram.then((channel) => channel?.stop()).catch(() => {});
      await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 3_000).unref())]);
    },
  };
}
