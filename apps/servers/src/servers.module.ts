import path from 'node:path';
import { Module } from '@nestjs/common';
import { CONFIG, PlatformConfig } from '@spawnpoint/platform';
import { GameRuntime, KubernetesRuntime, ProcessRuntime } from '@spawnpoint/runtime';
import { RUNTIME, ServersService } from './servers.service';

@Module({
  providers: [
    {
      provide: RUNTIME,
      inject: [CONFIG],
      // RUNTIME=kubernetes: one Pod per server, configured by the file at SPAWNPOINT_K8S_CONFIG (docs/kubernetes.md).
      useFactory: async (config: PlatformConfig): Promise<GameRuntime> =>
        config.runtime === 'kubernetes'
          ? KubernetesRuntime.fromEnvironment()
          : new ProcessRuntime({
            portRange: config.portRange, tcpHost: config.tcpHost, udpHost: config.udpHost, startupTimeoutMs: config.startupTimeoutMs,
            // Each game's pid, start time and spec: a restart after a crash adopts them (docs/adr/0006-crash-recovery.md).
            stateDir: path.join(config.dataDir, 'machines'),
          }),
    },
    ServersService,
  ],
  exports: [ServersService],
})
export class ServersModule {}
