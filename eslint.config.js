import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.data/',
      '.bench-data/',
      'test-results/',
      'coverage/',
      'packages/*/dist/',
      'packages/client/src/generated/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  // Module boundaries: another capability module is imported only through its index.ts (npm run graph
  // checks the same, and also that no module depends on itself through others).
  {
    files: ['src/modules/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^\\.\\./[^./][^/]*/(?!index\\.js$)', message: 'Import another module through its index.ts.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/modules/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ regex: '(^|/)modules/[^/]+/(?!index\\.js$)', message: 'Import a module through its index.ts.' }],
        },
      ],
    },
  },
  // Browser code (bundled by esbuild at start): it takes only types from the server, which esbuild drops,
  // so no server code and no Node API ends up in a page.
  {
    files: ['src/web/*/client/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // Values only from browser folders, a page's shared element ids, @noble/hashes, and the two
              // pure server files the checkout renders its words with.
              regex:
                '^(?!\\./|\\.\\./[a-z-]+\\.ids\\.js$|\\.\\./\\.\\./[a-z-]+/client/|@noble/hashes/|\\.\\./checkout\\.text\\.js$|\\.\\./\\.\\./\\.\\./chain/chain-names\\.js$)',
              allowTypeImports: true,
              message: 'Browser code takes only types from the server and from packages: import type.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'Not in a browser.' },
        { name: 'Buffer', message: 'Not in a browser.' },
        { name: 'global', message: 'Not in a browser: globalThis or window.' },
      ],
    },
  },
  {
    files: ['eslint.config.js', 'vitest.config.ts', 'test/setup/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
