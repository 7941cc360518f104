import type { AppContext } from '../../app/context.js';
import { PgEventListener } from '../../store/pg-events.js';

/**
 * On the team database, calls `wake` whenever any replica writes an event (LISTEN/NOTIFY, on a
 * connection of its own that reconnects by itself; `wake` is called after each reconnect too, so
 * that the reader backfills from the events table). Resolves once listening.
 */
export async function listenForEvents(
  app: AppContext,
  url: string,
  wake: () => void,
): Promise<{ close(): Promise<void> }> {
  const listener = new PgEventListener({
    url,
    wake,
    onStatus: (status, detail) =>
      (status === 'connected' ? app.log.info : app.log.warn).call(app.log, 'hub.events_listener', {
        status,
        detail: detail ?? null,
      }),
  });
  await listener.start();
  return listener;
}
