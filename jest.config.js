/**
 * One jest project per directory of test/. Only the projects that talk to a shared DynamoDB Local
 * (integration, cli, bench) start it: jest runs a global setup once, and only when a selected test
 * belongs to a project that declares it. `unit` and `infra` need no Java; `e2e` starts its own
 * emulators in each run. `npm test` runs every project once; `npm run test:<project>` one of them.
 */
const shared = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': 'ts-jest',
    // hyparquet, hyparquet-writer and jose's web build ship only ES modules; jest's CommonJS runtime
    // needs them transformed.
    '/node_modules/(?:hyparquet[^/]*|jose)/.+\\.js$': [
      'babel-jest',
      { babelrc: false, configFile: false, plugins: ['@babel/plugin-transform-modules-commonjs'] },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!hyparquet|jose/)'],
  setupFiles: ['<rootDir>/test/support/quiet-telemetry.ts'],
};

const withDynamoDbLocal = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

const project = (name, extra = {}) => ({
  ...shared,
  displayName: name,
  roots: [`<rootDir>/test/${name}`],
  ...extra,
});

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    project('unit'),
    project('infra'),
    project('integration', withDynamoDbLocal),
    project('cli', withDynamoDbLocal),
    project('bench', withDynamoDbLocal),
    project('e2e'),
  ],
  testTimeout: 60000,
  maxWorkers: 2,
};
