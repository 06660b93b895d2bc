import tseslint from 'typescript-eslint';

export default tseslint.config(
  { basePath: '..' },
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // The layering the README describes: the API client knows nothing of MCP or the tools built on it.
    files: ['src/upstream/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@modelcontextprotocol/*'], message: 'src/upstream/ knows nothing of MCP.' },
            {
              group: ['**/tools/**', '**/mcp/**', '**/transports/**'],
              message: 'src/upstream/ does not import the MCP layer.',
            },
          ],
        },
      ],
    },
  },
  {
    // The simulator is an independent oracle: it never shares code with the client it checks.
    files: ['src/simulator/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/upstream/**', '**/domain/**', '**/tools/**', '**/mcp/**'],
              message: 'The simulator never imports the client, its domain rules or the MCP layer.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**', 'src/cli.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // Tests read raw JSON answers; their shapes are pinned by zod schemas, not by static types.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
