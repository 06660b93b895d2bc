import { createRequire } from 'node:module';

// src/version.ts and the bundled dist/cli.js both sit one level below package.json.
export const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
