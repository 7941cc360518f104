/**
 * Debian's Chromium for the dashboard's browser tests (`.ci/run` installs it): whether it is here
 * (a test file without it says so and is skipped), where screenshots go, and how it is started.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Screenshots of each page, kept after the run (test-artifacts/ is not committed). */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

/** Whether Chromium is here; when not, says which test file is skipped and why. */
export function chromiumFor(testFile: string): boolean {
  const available = existsSync(CHROMIUM);
  if (!available)
    console.warn(`SKIPPED ${testFile}: no ${CHROMIUM} (Debian's chromium; .ci/run installs it).`);
  return available;
}

export function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
