import { z } from 'zod';

/**
 * The optional `session_id` every tool takes: omitted, it is the connection's own session. The server
 * instructions say so once, rather than every schema.
 */
export const sessionIdField = z.string().min(1).max(200).optional();

/** An id (or, where a tool says so, a session name) given by a client: bounded like any input. */
export const idField = z.string().min(1).max(200);
