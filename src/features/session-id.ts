import { z } from 'zod';

/** The optional `session_id` every tool takes: omitted, it is the connection's own session. */
export const sessionIdField = z.string().min(1).optional().describe("Defaults to this connection's session");
