import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { App } from '../app/app.js';
import { CollabError } from '../core/errors.js';
import { importAiCollab } from '../features/reviews/ai-collab-import.js';
import { green, printJson } from './format.js';

/** `session-collab import-ai-collab <data.json>`: the original review tool's data, idempotently. */
export async function importAiCollabCommand(file: string, options: { json?: boolean }): Promise<void> {
  const path = resolve(file);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CollabError(
      'INVALID_INPUT',
      `Cannot read ${path}: ${(error as Error).message}`,
      'Give the path of a data.json (by default ~/.mcp-ai-collab/data.json).',
    );
  }
  const app = await App.open();
  try {
    const result = await importAiCollab(app, raw, path);
    if (options.json) {
      printJson(result);
      return;
    }
    console.log(
      `${green('Imported')} from ${path}: ${result.projects.imported} project(s), ${result.work_items.imported} work item(s), ${result.reviews.imported} review(s), ${result.suggestions} suggestion(s), ${result.responses} response(s).`,
    );
    const skipped = result.projects.existing + result.work_items.existing + result.reviews.existing;
    if (skipped > 0) console.log(`${skipped} record(s) were there already and were left as they are.`);
  } finally {
    await app.close();
  }
}
