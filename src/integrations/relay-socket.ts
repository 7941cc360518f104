/** The socket files of a home's machine server (relay-address.ts names them). */
import { readdirSync, readlinkSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { processAlive } from './process-probe.js';

/** Whether a server answers at `path` (a connection is accepted). */
export function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The socket the home's link points at (null: no link). */
export function pointsAt(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/** Sockets of servers that are gone (killed: their listener never closed), beside the link. */
export function removeLeftSockets(path: string): void {
  const folder = dirname(path);
  const prefix = `${basename(path)}.`;
  try {
    for (const name of readdirSync(folder)) {
      const pid = Number(name.slice(prefix.length));
      if (!name.startsWith(prefix) || !Number.isSafeInteger(pid) || processAlive(pid, null)) continue;
      rmSync(join(folder, name), { force: true });
    }
  } catch {
    // Best effort: a left socket costs a file.
  }
}
