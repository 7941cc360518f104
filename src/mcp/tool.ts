/**
 * The tool descriptor: what a feature declares about one tool. Free of the MCP SDK, so features
 * can define tools without importing it; `mcp/server.ts` turns descriptors into a served toolset.
 */
import type { z } from 'zod';
import type { App } from '../app/app.js';
import type { Connection } from '../features/sessions/connection.js';

export const TOOLSETS = ['collab', 'realm', 'review'] as const;
export type Toolset = (typeof TOOLSETS)[number];

/** read: changes nothing; write: adds or changes; destructive: ends or discards something. */
export type ToolKind = 'read' | 'write' | 'destructive';

export interface ToolContext {
  app: App;
  connection: Connection;
}

export interface ToolDescriptor<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  toolset: Toolset;
  title: string;
  description: string;
  input: I;
  output: O;
  kind: ToolKind;
  /** Whether calling twice with the same input has the effect of calling once. */
  idempotent?: boolean;
  handler(ctx: ToolContext, input: z.output<I>): z.input<O>;
  /** The short human-readable text that accompanies the structured result. */
  text(output: z.output<O>): string;
}

/** Identity, for type inference of a descriptor's handler from its schemas. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  d: ToolDescriptor<I, O>,
): ToolDescriptor<I, O> {
  return d;
}
