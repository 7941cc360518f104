import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { App } from '../app/app.js';
import type { Connection } from '../features/sessions/connection.js';
import { describeZodError, toErrorBody } from './tool-result.js';
import type { ToolDescriptor } from './tool.js';

export const SERVER_NAME = 'session-collab';
declare const __VERSION__: string | undefined;
export const SERVER_VERSION = typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev';

export const INSTRUCTIONS = `Coordinates sessions that work on the same code. Before editing files, claim them (collab_claim); before deleting or rewriting, collab_check; if another session holds them, message it, wait, or ask the user. Release claims when done. Read collab_message_list now and then. session_id may be omitted: it defaults to this connection's session.`;

interface ListedTool {
  descriptor: ToolDescriptor;
  definition: Tool;
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  return rest;
}

/** The MCP `tools/list` entries of descriptors; annotations derive from each tool's kind. */
export function toolDefinitions(tools: ToolDescriptor[]): Tool[] {
  return tools.map((d) => ({
    name: d.name,
    title: d.title,
    description: d.description,
    inputSchema: jsonSchema(d.input, 'input') as Tool['inputSchema'],
    outputSchema: jsonSchema(d.output, 'output') as Tool['outputSchema'],
    annotations: {
      title: d.title,
      readOnlyHint: d.kind === 'read',
      destructiveHint: d.kind === 'destructive',
      idempotentHint: d.kind === 'read' || d.idempotent === true,
      openWorldHint: false,
    },
  }));
}

/**
 * Serves descriptors over one MCP connection. Validation, the heartbeat, error mapping and the
 * response envelope live here, once, rather than in each tool.
 */
export function createMcpServer(app: App, connection: Connection, tools: ToolDescriptor[]): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  const definitions = toolDefinitions(tools);
  const byName = new Map<string, ListedTool>(tools.map((d, i) => [d.name, { descriptor: d, definition: definitions[i]! }]));

  server.setRequestHandler('tools/list', () => ({ tools: definitions }));
  server.setRequestHandler('tools/call', async (request) => {
    const listed = byName.get(request.params.name);
    if (!listed) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    const result = callTool(app, connection, listed.descriptor, request.params.arguments ?? {});
    return server.projectCallToolResult(result, listed.definition.outputSchema);
  });
  return server;
}

/** Runs one tool call to a complete MCP result: never throws. */
export function callTool(app: App, connection: Connection, d: ToolDescriptor, args: unknown): CallToolResult {
  const parsed = d.input.safeParse(args);
  if (!parsed.success) {
    return errorResult({ code: 'INVALID_INPUT', message: describeZodError(parsed.error), hint: 'Fix the named field and call again.' });
  }
  try {
    connection.heartbeat();
    const output = d.output.parse(d.handler({ app, connection }, parsed.data));
    return { content: [{ type: 'text', text: d.text(output) }], structuredContent: output as Record<string, unknown> };
  } catch (error) {
    const body = toErrorBody(error);
    app.log[body.code === 'INTERNAL_ERROR' || body.code === 'DB_ERROR' ? 'error' : 'info']('tool.error', {
      tool: d.name,
      code: body.code,
      message: body.message,
      ...(body.code === 'INTERNAL_ERROR' ? { stack: (error as Error).stack } : {}),
    });
    return errorResult(body);
  }
}

function errorResult(body: ReturnType<typeof toErrorBody>): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${body.code}: ${body.message}\nHint: ${body.hint}` }],
    structuredContent: { error: body },
  };
}
