import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A recorded hook input (test/fixtures/<client>/<name>.json) for a project folder and session id. */
export function hookFixture(
  file: string,
  root: string,
  sessionId: string,
  toolInput?: Record<string, unknown>,
): Record<string, unknown> {
  const path = fileURLToPath(new URL(`../fixtures/${file}.json`, import.meta.url));
  const data = JSON.parse(readFileSync(path, 'utf8').replaceAll('$' + '{ROOT}', root)) as Record<
    string,
    unknown
  >;
  // Cursor names its client session `conversation_id`.
  if ('conversation_id' in data) data.conversation_id = sessionId;
  else data.session_id = sessionId;
  if (toolInput) data.tool_input = toolInput;
  return data;
}
