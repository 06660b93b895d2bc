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
  },
});
