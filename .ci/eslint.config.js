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
  // The layers (and the simulator standing alone) are checked by dependency-cruiser: .ci/dependency-cruiser.cjs.
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
