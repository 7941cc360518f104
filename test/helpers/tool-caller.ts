// Tool calls through a real MCP client, as tests make them: apart from the in-process app
// (helpers/app.ts), so that a test of real processes does not load the whole of it.
import type { Client } from '@modelcontextprotocol/client';

export type ToolError = { code: string; message: string; hint: string };

/** `call` returns structuredContent (throwing on isError); `fail` expects isError and returns its body. */
export function toolCaller(client: Client) {
  return {
    async call<T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}): Promise<T> {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError)
        throw Object.assign(new Error(`${name}: ${JSON.stringify(result.structuredContent)}`), { result });
      return result.structuredContent as T;
    },
    async fail(name: string, args: Record<string, unknown> = {}): Promise<ToolError> {
      const result = await client.callTool({ name, arguments: args });
      if (!result.isError) throw new Error(`${name} succeeded: ${JSON.stringify(result.structuredContent)}`);
      return (result.structuredContent as { error: ToolError }).error;
    },
  };
}
