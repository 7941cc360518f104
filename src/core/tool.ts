/**
 * The tool descriptor: what a feature declares about one tool. Free of the MCP SDK and of the
 * services (the context a handler gets is a type parameter), so that it sits below everything that
 * defines or serves tools; `mcp/server.ts` turns descriptors into a served toolset.
 */
import type { z } from 'zod';

/** read: changes nothing; write: adds or changes; destructive: ends or discards something. */
export type ToolKind = 'read' | 'write' | 'destructive';

export interface ToolDescriptor<
  Ctx,
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  kind: ToolKind;
  /** Whether calling twice with the same input has the effect of calling once. */
  idempotent?: boolean;
  /** A tool that reaches outside the store (pushes to a git remote): its `openWorldHint` stays true. */
  openWorld?: boolean;
  /**
   * A `write` tool whose only change is to what the caller itself has seen (its messages marked
   * read, its answers collected): nothing another session or a person sees changes, so
   * `--read-only` serves it. Its annotations stay a write's (it does change the store).
   */
  marksOwnRead?: boolean;
  /**
   * A tool that may wait (for a person, for another agent): its context carries the call's
   * controls (cancellation, progress, the client's own form).
   */
  waits?: boolean;
  /**
   * For a tool whose `wait_seconds` may be left out: the seconds it then waits (its default is
   * worked out in the handler, from config: a call sent again is asked for what is left of it).
   */
  waitDefault?(ctx: Ctx): number;
  /** Any handler may answer with a promise (the store's asynchronous interface, a wait). */
  handler(ctx: Ctx, input: z.output<I>): z.input<O> | Promise<z.input<O>>;
  /** The short human-readable text that accompanies the structured result. */
  text(output: z.output<O>): string;
}
