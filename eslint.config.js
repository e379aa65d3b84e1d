import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { wallConfigs } from './eslint.walls.js';

/** Reading the wall clock: services and stores read the Clock they are given (domain/time.ts). */
const WALL_CLOCK_READS = [
  {
    selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
    message: 'read the time through the Clock this service or store is given (domain/time.ts), not Date.now()',
  },
  {
    selector: "NewExpression[callee.name='Date'][arguments.length=0]",
    message: 'read the time through the Clock this service or store is given (domain/time.ts), not new Date()',
  },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', '.bench/'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // A rest copy names what it leaves out by destructuring it (`{ id: _id, ...rest }`).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-console': 'off',
    },
  },
  // The walls between the layers: eslint.walls.js.
  ...wallConfigs(),
  {
    files: ['src/http/**', 'src/dav/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(get|post|put|delete|patch|head|options|all)$/][callee.object.name=/^(app|scope)$/] > :matches(ArrowFunctionExpression, FunctionExpression)',
          message: 'name the route handler: declare it as a function and register it by its name',
        },
      ],
    },
  },
  {
    files: ['src/store/**', 'src/service/services.ts'],
    rules: { 'no-restricted-syntax': ['error', ...WALL_CLOCK_READS] },
  },
  {
    files: ['src/service/**'],
    ignores: ['src/service/services.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...WALL_CLOCK_READS,
        {
          selector: "ImportSpecifier[imported.name='nowMicros']",
          message: 'a use case reads the Clock buildServices gives it (services.ts), not nowMicros',
        },
      ],
    },
  },
);
