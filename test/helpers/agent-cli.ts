import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.js';

/**
 * A real agent CLI for an end-to-end test: the path in `variable` (set by .ci/run), else `bin` on
 * PATH. When there is none the test is skipped, and this says so on the console.
 */
export function findAgentCli(variable: string, bin: string, testFile: string): string | null {
  const configured = process.env[variable];
  let found: string | null = null;
  if (configured) found = existsSync(configured) ? configured : null;
  else {
    try {
      found = execFileSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' }).trim() || null;
    } catch {
      found = null;
    }
  }
  if (!found)
    console.warn(`SKIPPED ${testFile}: no \`${bin}\` executable (set ${variable}; .ci/run installs one).`);
  return found;
}

/** Runs a CLI without blocking this process's event loop (the fake API answers from it). */
export function runAgentCli(
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      { ...options, encoding: 'utf8', timeout: 120_000 },
      (_error, stdout, stderr) => resolve({ stdout, stderr }),
    );
    // Nothing on stdin (a CLI that reads a piped prompt waits for its end).
    child.stdin?.end();
  });
}

/** A Gemini CLI user's home: API-key auth chosen, folder trust off (no first-run questions). */
export function geminiUserHome(): string {
  const userHome = tempDir('gemini-home-');
  mkdirSync(join(userHome, '.gemini'));
  writeFileSync(
    join(userHome, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { folderTrust: { enabled: false }, auth: { selectedType: 'gemini-api-key' } },
    }),
  );
  return userHome;
}
