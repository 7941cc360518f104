/**
 * What a run is given besides its prompt: the folder it runs in, the contents of the project's
 * files put before it, and a person's search words for the history.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { CollabError, invalidInput } from '../../core/errors.js';
import { shown } from '../../core/fence.js';
import type { SessionRow } from '../../store/sessions-store.js';

/** Files given as context: at most this many, of at most this size each. */
export const MAX_CONTEXT_FILES = 20;
const MAX_CONTEXT_FILE_BYTES = 200_000;

/**
 * The prompt with the files' contents before it, each fenced and named. Only files of the project
 * (`root`, symlinks followed) are read: a prompt cannot carry the rest of the machine to a CLI.
 */
export function withFiles(prompt: string, cwd: string, root: string, files: string[]): string {
  if (files.length > MAX_CONTEXT_FILES) throw invalidInput(`file_paths: at most ${MAX_CONTEXT_FILES} files.`);
  const realRoot = realpathSync(root);
  const parts = files.map((file) => {
    let content: string;
    try {
      const path = realpathSync(resolve(cwd, file));
      const rel = relative(realRoot, path);
      if (rel.startsWith('..') || isAbsolute(rel))
        throw invalidInput(`file_paths: ${file} is outside the project.`);
      if (statSync(path).size > MAX_CONTEXT_FILE_BYTES)
        throw invalidInput(`file_paths: ${file} is over ${MAX_CONTEXT_FILE_BYTES / 1000} kB.`);
      content = readFileSync(path, 'utf8');
    } catch (error) {
      if (error instanceof CollabError) throw error;
      throw invalidInput(`file_paths: cannot read ${file} (${(error as Error).message}).`);
    }
    return `<file path="${file.replace(/"/g, "'")}">\n${content}\n</file>`;
  });
  return `${parts.join('\n\n')}\n\n${prompt}`;
}

/** A person's search words (at most 20): the store searches for each as it is (no operators from the input). */
export function searchWords(query: string): string[] {
  return query.split(/\s+/).filter(Boolean).slice(0, 20);
}

/**
 * The run's folder: inside the session's project (the worktree when not given), symlinks followed
 * (a link inside the project to a folder outside it is outside).
 */
export function insideProject(session: SessionRow, cwd: string | undefined): string {
  const folder = cwd === undefined ? session.worktree : resolve(session.worktree, cwd);
  const outside = () =>
    invalidInput(`cwd: ${shown(cwd ?? folder)} is outside the project (${session.worktree}).`);
  const within = (root: string, path: string) => {
    const rel = relative(root, path);
    return !(rel.startsWith('..') || isAbsolute(rel));
  };
  if (!within(session.worktree, folder)) throw outside();
  let real: string;
  try {
    real = realpathSync(folder);
    if (!statSync(real).isDirectory()) throw new Error('not a folder');
  } catch {
    throw invalidInput(`cwd: ${shown(folder)} is not a folder.`);
  }
  if (!within(realpathSync(session.worktree), real)) throw outside();
  return folder;
}

/**
 * A CLI conversation id as the CLIs make them (UUIDs, thread ids): letters, digits and `._:-`, not
 * starting with `-`, so that on a command line it is never read as a flag or as more than one word.
 */
const CLI_SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

/** `id` when it is a CLI conversation id (`CLI_SESSION_ID`); INVALID_INPUT otherwise. */
export function cliSessionId(id: string): string {
  if (CLI_SESSION_ID.test(id)) return id;
  throw invalidInput(
    `session_id: ${shown(id)} is no CLI session id (letters, digits, ".", "_", ":" and "-", not first; at most 200).`,
    'Use a session_id an earlier run gave (get_execution_history shows them), or reset_session to start over.',
  );
}
