import { clientProcess } from '../integrations/process-tree.js';

/**
 * `session-collab hub-headers`: the HTTP headers of a client's connection to the hub, printed as one
 * JSON object. Claude Code runs it as the server's `headersHelper` (in the project folder, as a child
 * of itself), so the hub learns the project and which Claude Code process it serves; the client's
 * hooks walk up to the same process, and so both act as one collab session.
 */
export function hubHeadersCommand(): void {
  const headers: Record<string, string> = { 'X-Collab-Project': process.cwd() };
  const client = clientProcess();
  if (client?.start) {
    headers['X-Collab-Client-Pid'] = String(client.pid);
    headers['X-Collab-Client-Start'] = client.start;
  }
  const token = process.env.SESSION_COLLAB_TOKEN?.trim();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (process.env.SESSION_COLLAB_SESSION_NAME)
    headers['X-Collab-Session-Name'] = process.env.SESSION_COLLAB_SESSION_NAME;
  process.stdout.write(`${JSON.stringify(headers)}\n`);
}
