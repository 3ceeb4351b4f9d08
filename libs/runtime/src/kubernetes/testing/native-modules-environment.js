// Jest environment for specs that load ES-module-only packages (@kubernetes/client-node, kubernetes-models).
// Jest's CommonJS registry cannot require() ES modules on Node < 24.9, while Node 20.19+ itself can; this
// environment hands the spec Node's own require and import, which load those packages outside the registry.
// Use with the docblock `@jest-environment ./libs/runtime/src/kubernetes/testing/native-modules-environment.js`.
const { TestEnvironment } = require('jest-environment-node');

class NativeModulesEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.spawnpointNativeRequire = require;
    this.global.spawnpointNativeImport = (specifier) => import(specifier);
  }
}

module.exports = NativeModulesEnvironment;
