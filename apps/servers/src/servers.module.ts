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
          : new ProcessRuntime({ portRange: config.portRange, tcpHost: config.tcpHost, udpHost: config.udpHost, startupTimeoutMs: config.startupTimeoutMs }),
    },
    ServersService,
  ],
  exports: [ServersService],
})
export class ServersModule {}
