import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { TelegramUpdate } from './telegram-api.js';

/** Telegram's updates are small; anything larger is not one. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Listens for the updates Telegram posts in webhook mode: POST to `path`, with the secret token
 * in X-Telegram-Bot-Api-Secret-Token (compared in constant time; 401 otherwise). Each update is
 * answered once `onUpdate` has handled it (a failure answers 500 and Telegram posts it again).
 */
export async function listenForUpdates(
  listen: string,
  path: string,
  secret: string,
  onUpdate: (update: TelegramUpdate) => Promise<void>,
): Promise<{ close(): Promise<void>; address: string }> {
  const expected = Buffer.from(secret);
  const server = createServer((req, res) => {
    const reply = (status: number, body = '') => {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(body);
    };
    if ((req.url ?? '').split('?')[0] !== path) return reply(404);
    if (req.method !== 'POST') return reply(405);
    const given = Buffer.from(String(req.headers['x-telegram-bot-api-secret-token'] ?? ''));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return reply(401);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reply(413);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.writableEnded) return;
      let update: TelegramUpdate;
      try {
        update = JSON.parse(Buffer.concat(chunks).toString('utf8')) as TelegramUpdate;
        if (!Number.isSafeInteger(update?.update_id)) throw new Error('no update_id');
      } catch {
        return reply(400);
      }
      onUpdate(update).then(
        () => reply(200),
        () => reply(500),
      );
    });
  });
  const [host, port] = [
    listen.slice(0, listen.lastIndexOf(':')),
    Number(listen.slice(listen.lastIndexOf(':') + 1)),
  ];
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address();
  return {
    address: typeof bound === 'object' && bound ? `${bound.address}:${bound.port}` : listen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
