// A call its relay sent again to the next server while the server it was sent to first, replaced
// but still running, finishes it (cli/relay-server.ts): each of its writes is done once, whichever
// server writes first. Two stores on one file are the two servers.
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { type CallRecording, recordingWrites } from '../../src/store/call-records-store.js';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../helpers/temp.js';

const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function twoServers() {
  const file = join(tempDir('collab-twice-'), 'registry.db');
  const first = Store.open(file);
  const second = Store.open(file);
  opened.push(first, second);
  await first.sql.run('CREATE TABLE effect (by TEXT NOT NULL)');
  const call = (again: boolean): CallRecording => ({
    call: 'relay-1:"7"',
    again,
    seen: new Map(),
    wrote: false,
    fromRecord: false,
    over: false,
    answered: [],
  });
  /** The call's one write, as each server runs it (the same code: the same step of the call). */
  const run = (store: Store, again: boolean) =>
    recordingWrites(call(again), () =>
      store.write(async () => {
        const by = store === first ? 'first' : 'second';
        await store.sql.run('INSERT INTO effect (by) VALUES (?)', [by]);
        return { by };
      }),
    );
  const effects = async () => (await first.sql.all<{ by: string }>('SELECT by FROM effect')).map((r) => r.by);
  return { first, second, run, effects };
}

it('the server it was sent to again writes first: the first server’s run is undone, and answered as the other did it', async () => {
  const { first, second, run, effects } = await twoServers();
  expect(await run(second, true)).toEqual({ by: 'second' });
  expect(await run(first, false)).toEqual({ by: 'second' });
  expect(await effects()).toEqual(['second']);
});

it('the first server writes first: the call sent again is answered from its record', async () => {
  const { first, second, run, effects } = await twoServers();
  expect(await run(first, false)).toEqual({ by: 'first' });
  expect(await run(second, true)).toEqual({ by: 'first' });
  expect(await effects()).toEqual(['first']);
});
