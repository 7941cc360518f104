// The floor of the hub benchmark: a bare Hono server on @hono/node-server (what the hub is built
// on) that answers each POST with its JSON body, in its own process, naming one MCP session on
// every answer as the hub does (so that its clients send the hub's headers too). Prints its address.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const SESSION = '00000000-0000-4000-8000-000000000001';
const app = new Hono();
app.post('/mcp', async (c) => c.json(await c.req.json(), 200, { 'mcp-session-id': SESSION }));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`${JSON.stringify({ mcp: `http://127.0.0.1:${info.port}/mcp` })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
