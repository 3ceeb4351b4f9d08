// @kubernetes/client-node 1.x is an ES module. Node 20.19+ require()s it natively (what the built
// services do), but Jest's module registry on Node < 24.9 cannot; specs that need the real client run in
// testing/native-modules-environment.js, which lends them Node's own require. Loaded on first use, so
// importing @spawnpoint/runtime (the process runtime, the pure pod builders) never pulls it in.
import type * as KubernetesClientModule from '@kubernetes/client-node';

export type KubernetesClient = typeof KubernetesClientModule;

let loaded: KubernetesClient | undefined;

export function kubernetesClient(): KubernetesClient {
  const nativeRequire = (globalThis as { spawnpointNativeRequire?: NodeJS.Require }).spawnpointNativeRequire ?? require;
  loaded ??= nativeRequire('@kubernetes/client-node') as KubernetesClient;
  return loaded;
}
