// The floor of the hub benchmark: a bare Hono server on @hono/node-server (what the hub is built
// on) that answers each POST with its JSON body, in its own process. Prints its address.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.post('/mcp', async (c) => c.json(await c.req.json()));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`${JSON.stringify({ mcp: `http://127.0.0.1:${info.port}/mcp` })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
