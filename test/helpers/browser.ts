import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { vi } from 'vitest';

/** Debian's Chromium (installed by .ci/ensure-chromium), headless, as these machines allow it to run. */
export function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath))
    throw new Error(`No Chromium at ${executablePath}: run bash .ci/ensure-chromium (npm test runs it first).`);
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
}

/**
 * Called at the top of a browser test file: Chromium is the heaviest thing the suite runs, and with other test files
 * busy beside it a test took over the default 20 s. Vitest restores the defaults after the file.
 */
export function withBrowserTimeouts(): void {
  vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
}
