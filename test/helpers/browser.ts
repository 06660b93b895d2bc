import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (installed by .ci/ensure-chromium), headless, as these machines allow it to run. */
export function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath))
    throw new Error(`No Chromium at ${executablePath}: run bash .ci/ensure-chromium (npm test runs it first).`);
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
}
