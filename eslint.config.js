const tseslint = require('typescript-eslint');

/** Code that ships or runs the product: typescript-eslint's type-checked recommendations in full. */
const TYPE_CHECKED = [
  'bin/**/*.ts',
  'cli/**/*.ts',
  'contract/**/*.ts',
  'lambda/**/*.ts',
  'lib/**/*.ts',
  'scripts/**/*.ts',
  'local/**/*.ts',
  'bench/**/*.ts',
];

module.exports = tseslint.config(
  { ignores: ['node_modules/**', 'cdk.out/**', 'coverage/**', '**/*.js', '**/*.d.ts'] },
  ...tseslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: TYPE_CHECKED })),
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: __dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-imports': 'off',
      // Tests too: every promise is awaited, returned or explicitly voided, and never passed where a
      // callback's result is ignored.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    files: ['lambda/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@aws-sdk/*', 'aws-sdk'],
              message: 'lambda/core is pure: no AWS SDK imports.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./)',
              message:
                'contract/ is shared by lib/, lambda/ bundles and tools: import only other contract/ modules.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)lambda/',
              message:
                'lib/ imports no Lambda code: share it through contract/ (handlers are named by entry path).',
            },
          ],
        },
      ],
    },
  },
);
