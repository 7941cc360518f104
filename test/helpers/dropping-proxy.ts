// Between a hook and the server it asks: the first answer the server writes never reaches the
// hook, whose connection ends with nothing, as when the server is killed between its write's
// commit and its answer. Later asks go through.
import { createServer, type Socket } from 'node:net';

export interface DroppingProxy {
  /** Its port, when it listens on loopback (else 0). */
  port: number;
  /** Connections it took so far. */
  asks(): number;
  /** Resolves once the first answer is dropped. */
  dropped: Promise<void>;
  close(): Promise<void>;
}

/** A proxy listening at `at` (a socket's path, or 0: a loopback port) to what `upstream` connects to. */
export async function droppingFirstAnswer(at: string | 0, upstream: () => Socket): Promise<DroppingProxy> {
  let asks = 0;
  let droppedOne!: () => void;
  const dropped = new Promise<void>((r) => {
    droppedOne = r;
  });
  const proxy = createServer((caller: Socket) => {
    const first = ++asks === 1;
    const server = upstream();
    caller.on('error', () => {});
    server.on('error', () => caller.destroy());
    caller.pipe(server);
    server.on('data', (chunk: Buffer) => {
      if (!first) return void caller.write(chunk);
      caller.destroy();
      server.destroy();
      droppedOne();
    });
    server.on('end', () => caller.end());
  });
  await new Promise<void>((r) => (at === 0 ? proxy.listen(0, '127.0.0.1', r) : proxy.listen(at, r)));
  const address = proxy.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    asks: () => asks,
    dropped,
    close: () => new Promise((r) => proxy.close(() => r())),
  };
}
