const { TestEnvironment } = require('jest-environment-node');
class NativeModulesEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.spawnpointNativeRequire = require;
    this.global.spawnpointNativeImport = (id) => import(id);
  }
}
module.exports = NativeModulesEnvironment;
