// Lint: TypeScript recommended rules over every workspace's sources; generated and built files excluded.
const tseslint = require('typescript-eslint');

module.exports = tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/generated/**', '.spawnpoint/**', 'coverage/**', 'bench/results/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  // Services and libraries log through @spawnpoint/logging (JSON lines, docs/operations.md "Logs"), never the
  // console; tests, test kits and the replay CLI (its report is its stdout) may print.
  {
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts', 'proto/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/testing/**', '**/testing.ts', 'apps/matchmaking/src/replay/cli.ts'],
    rules: {
      'no-console': 'error',
      // A typed subject's reply type comes from BusSubjects (libs/platform bus-subjects.ts): naming it again
      // at the call would be a cast.
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.property.name='request'][typeArguments][arguments.0.object.object.name='SUBJECTS']",
        message: 'bus.request(SUBJECTS.…) answers the subject\'s reply type (BusSubjects): drop the type argument',
      }],
    },
  },
  { files: ['**/*.js'], languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly' } } },
);
