import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** An import of one of our layers, by the folder it lives in under src/. */
function layer(name, message) {
  return { regex: `(^|/)(\\.\\./)+(src/)?${name}(/|\\.js$)`, message };
}

/**
 * The walls between the layers (docs/architecture.md): data flows http → service → store, the
 * domain imports nothing else of ours, and only main.ts and the command line wire them together.
 */
const WALLS = {
  'src/domain/**': [
    layer('(http|service|store|cli|client|config|main)', 'domain/ is pure: it imports nothing else of ours'),
  ],
  'src/service/**': [
    layer('(http|cli|client|config|main)', 'service/ takes and returns domain values: no HTTP, no CLI'),
  ],
  'src/store/**': [layer('(service|http|cli|client|main)', 'store/ knows records, not use cases or HTTP')],
  'src/http/**': [layer('(store|cli|client|main)', 'http/ talks to services only, never to the store')],
  // The SDK runs in browsers too: it may borrow the server's types, never its code.
  'src/client/**': [
    {
      ...layer(
        '(domain|service|store|http|cli|config|main)',
        'client/ talks to /v1 only: types, never code, of the server',
      ),
      allowTypeImports: true,
    },
  ],
  // The web app is a client like any other: of ours it may use the SDK, nothing of the server.
  'web/src/**': [layer('(domain|service|store|http|cli|config|main)', 'web/ reaches the server through the SDK only')],
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', '.bench/'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  ...Object.entries(WALLS).map(([files, patterns]) => ({
    files: [files],
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  })),
);
