import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import { lineReader } from '../core/line-reader.js';
import { plainToolCall } from './direct-calls.js';

/** Where a `LineTransport` writes: a socket, or any stream of the same shape. */
export interface LineOutput {
  /** False once the connection is ended or gone. */
  readonly writable: boolean;
  write(text: string): boolean;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

/**
 * An MCP transport over newline-delimited JSON-RPC whose bytes its owner hands it (`receive`), as
 * the SDK's stdio transport reads them from a stream, without a stream in between. Each line is
 * parsed once; a `tools/call` of the plainest shape (`plainToolCall`, whose checks are the
 * protocol's) goes on as parsed, every other message is checked against the protocol's schema as
 * the SDK's transport checks it. A line that is not JSON-RPC is an error and the next is read; a
 * line over the SDK's limit (10 MiB) is an error and closes the transport.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private started = false;
  private closed = false;
  /** Lines received before the transport started, or while those are being handed on. */
  private waiting: string[] | null = [];
  private readonly read = lineReader(
    STDIO_DEFAULT_MAX_BUFFER_SIZE,
    (line) => (this.waiting ? this.waiting.push(line) : this.line(line)),
    () => {
      this.onerror?.(new Error(`A message over ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`));
      this.close().catch(() => {});
    },
  );

  constructor(private readonly output: LineOutput) {}

  /** Bytes (or text) read from the other side. */
  receive(chunk: Buffer | string): void {
    if (!this.closed) this.read(chunk);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('LineTransport already started');
    this.started = true;
    // Lines received before: handed on once whoever started the transport has set it up.
    setImmediate(() => {
      const lines = this.waiting ?? [];
      this.waiting = null;
      for (const line of lines) if (!this.closed) this.line(line);
    });
  }

  private line(text: string): void {
    if (this.closed) return;
    let message: JSONRPCMessage;
    try {
      const value: unknown = JSON.parse(text);
      message = plainToolCall(value) ? (value as JSONRPCMessage) : parseJSONRPCMessage(value);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      // As the SDK's transport: a handler's failure is told, and the connection ends.
      this.onerror?.(error as Error);
      this.close().catch(() => {});
    }
  }

  /** Resolves once the message is written out; rejects when the connection is gone first. */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || !this.output.writable) return Promise.reject(new Error('The connection is closed'));
    let text: string;
    try {
      text = serializeMessage(message);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.output.write(text)) return Promise.resolve();
    // Written once the other side has read what was before; not at all if the connection goes.
    return new Promise((resolve, reject) => {
      const settle = (gone: boolean) => () => {
        this.output.off('drain', drained);
        this.output.off('close', closed);
        if (gone) reject(new Error('The connection closed before the message was written'));
        else resolve();
      };
      const drained = settle(false);
      const closed = settle(true);
      this.output.once('drain', drained);
      this.output.once('close', closed);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.waiting = null;
    this.onclose?.();
  }
}
