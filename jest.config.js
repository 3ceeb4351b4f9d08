// One jest run, three kinds of test (see docs/testing.md). Sources are tested straight from src/ via swc.
const swc = ['@swc/jest', {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
}];
// jose (JWT verification in the gateway) ships only ES modules: jest's CommonJS runtime gets it via swc.
const swcEsm = ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
const base = {
  transform: { '^.+\\.ts$': swc, '/node_modules/jose/.+\\.js$': swcEsm },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  moduleNameMapper: { '^@spawnpoint/([a-z-]+)$': '<rootDir>/$1/src' },
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
};
const roots = (kind) => ({
  ...base,
  displayName: kind,
  moduleNameMapper: {
    '^@spawnpoint/(domain|eventstore|logging|messaging|read-models|runtime|platform|service-clients)$': '<rootDir>/libs/$1/src',
    '^@spawnpoint/proto$': '<rootDir>/proto/src',
    '^@spawnpoint/client$': '<rootDir>/packages/client/src',
    '^@spawnpoint/client/node$': '<rootDir>/packages/client/src/node',
    '^@spawnpoint/(gateway|projects|builds|servers|lobbies|matchmaking|backfill|standalone)$': '<rootDir>/apps/$1/src',
  },
  testMatch: [`<rootDir>/{libs,apps,packages,proto,bench,test,scripts}/**/*.${kind}.spec.ts`],
  testPathIgnorePatterns: ['/node_modules/'],
  // e2e: a failing test prints the tail of the platform's own output (test/support/e2e-environment.js).
  ...(kind === 'e2e' ? { testEnvironment: '<rootDir>/test/support/e2e-environment.js' } : {}),
});
module.exports = {
  // Per-test timeouts: 30 s by default; e2e suites raise theirs with jest.setTimeout.
  testTimeout: 30000,
  // The default reporter, then the slowest suites at the end of the run (test/support/slowest-reporter.js).
  reporters: ['default', '<rootDir>/test/support/slowest-reporter.js'],
  projects: [
    roots('unit'),
    roots('int'),
    roots('e2e'),
  ],
};
