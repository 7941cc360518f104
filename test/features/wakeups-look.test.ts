// What wakes a waiting call (features/waits/wakeups.ts) when reading the events table fails: a
// change another process made meanwhile is still seen once a read succeeds. On the embedded file,
// where nothing but that read tells of another process's writes.
import { afterEach, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { testApp } from '../helpers/app.js';

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

it("a watch whose first look failed still sees another process's write made before the next look", async () => {
  const app = await testApp({ backend: 'sqlite' });
  apps.push(app);
  const { events } = app.store;
  const lastId = events.lastId.bind(events);
  let failures = 1;
  events.lastId = async () => {
    if (failures-- > 0) throw new Error('database is locked');
    return lastId();
  };
  const watch = await app.wakeups.watch();
  // Another process's write (no write of this process tells): only the events table says so.
  await app.store.sql.run(
    "INSERT INTO events (at, project_id, kind, subject, op) VALUES (?, NULL, 'session', 'elsewhere', 'started')",
    [Date.now()],
  );
  expect(await watch.next(3_000)).toBe('changed');
  // Nothing more: the next look finds the same id.
  expect(await watch.next(600)).toBe('timed_out');
  watch.close();
});
