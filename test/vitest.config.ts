import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // A server a test starts keeps no history unless the test asks for it: stores never leak between tests.
    // Servers a test starts offer every tool (test/tools/toolsets.test.ts checks the default set).
    env: { ANALYTICS_HISTORY: 'none', ANALYTICS_TOOLSETS: 'all' },
    // Each worker imports the server's modules once for all its files, not once per file (that was a third of
    // the run). Tests keep their state in what they start (simulators, stores, keys of their own), not in modules.
    pool: 'forks',
    isolate: false,
    // Much of a test's time is waiting (rate limits, budgets, child processes): three files at a time keep two
    // cores busy. Vitest's default is one worker per core but one, a single worker on a 2-core machine.
    maxWorkers: 3,
  },
});
