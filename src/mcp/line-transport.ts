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

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const isId = (value: unknown): value is string | number =>
  typeof value === 'string' || Number.isSafeInteger(value);

/**
 * The id to answer a refused message with: its own where it was meant as a request (it names a
 * method) and has one of the protocol's shape; else null, as JSON-RPC asks. A response the client
 * got wrong is never answered under its id: that id is one of the server's own requests.
 */
function requestIdOf(value: unknown): string | number | null {
  return isObject(value) && 'method' in value && isId(value.id) ? value.id : null;
}

/** What keeps `value` (JSON) from being a JSON-RPC 2.0 message, said for whoever wrote it. */
function whatIsWrong(value: unknown): string {
  if (Array.isArray(value)) return 'a batch (a JSON array); send each message on a line of its own.';
  if (!isObject(value)) return `a message is a JSON object; got ${value === null ? 'null' : typeof value}.`;
  if (value.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0".';
  if ('method' in value) {
    if (typeof value.method !== 'string') return '"method" must be a string.';
    if ('id' in value && !isId(value.id)) return '"id" must be a string or an integer.';
    if ('params' in value && !isObject(value.params)) return '"params" must be an object.';
    return 'it does not have the shape of a request or a notification.';
  }
  if ('result' in value || 'error' in value)
    return 'a response needs an "id" (a string or an integer) and a "result" or a well-formed "error".';
  return 'it has no "method" (a request or a notification) and no "result" or "error" (a response).';
}

/**
 * An MCP transport over newline-delimited JSON-RPC whose bytes its owner hands it (`receive`), as
 * the SDK's stdio transport reads them from a stream, without a stream in between. Each line is
 * parsed once; a `tools/call` of the plainest shape (`plainToolCall`, whose checks are the
 * protocol's) goes on as parsed, every other message is checked against the protocol's schema as
 * the SDK's transport checks it. A line that is not JSON-RPC is answered as JSON-RPC asks (-32700
 * for one that is not JSON, -32600 for one that is no message), and the next is read; a line over
 * the SDK's limit (10 MiB) is an error and closes the transport.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private started = false;
  private closed = false;
  /** Lines received before the transport started, or while those are being handed on. */
  private waiting: string[] | null = [];
  /** Messages written while the other side had not read what was before: settled when it has. */
  private readonly unsent: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
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
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.refuse(
        null,
        PARSE_ERROR,
        'Parse error: the line is not JSON. Send one JSON-RPC message per line.',
      );
      this.onerror?.(error as Error);
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = plainToolCall(value) ? (value as JSONRPCMessage) : parseJSONRPCMessage(value);
    } catch (error) {
      this.refuse(requestIdOf(value), INVALID_REQUEST, `Invalid Request: ${whatIsWrong(value)}`);
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

  /** Answers a line that is no JSON-RPC message, as JSON-RPC asks: the client is not left waiting. */
  private refuse(id: string | number | null, code: number, message: string): void {
    // Not while answers wait for the other side to read: lines of a few bytes, each answered with a
    // hundred, would otherwise pile up without bound for a client that never reads.
    if (this.unsent.length > 0) return;
    this.send({ jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage).catch(() => {});
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
    if (this.output.write(text) && this.unsent.length === 0) return Promise.resolve();
    // Written once the other side has read what was before; not at all if the connection goes. One
    // pair of listeners for every message waiting, however many there are.
    return new Promise((resolve, reject) => {
      this.unsent.push({ resolve, reject });
      if (this.unsent.length > 1) return;
      const settle = (gone: boolean) => () => {
        this.output.off('drain', drained);
        this.output.off('close', closed);
        for (const waiting of this.unsent.splice(0))
          if (gone) waiting.reject(new Error('The connection closed before the message was written'));
          else waiting.resolve();
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
