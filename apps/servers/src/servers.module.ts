import { Module } from '@nestjs/common';
import { CONFIG, PlatformConfig } from '@spawnpoint/platform';
import { ProcessRuntime } from '@spawnpoint/runtime';
import { RUNTIME, ServersService } from './servers.service';

@Module({
  providers: [
    {
      provide: RUNTIME,
      inject: [CONFIG],
      useFactory: (config: PlatformConfig) =>
        new ProcessRuntime({ portRange: config.portRange, tcpHost: config.tcpHost, udpHost: config.udpHost, startupTimeoutMs: config.startupTimeoutMs }),
    },
    ServersService,
  ],
  exports: [ServersService],
})
export class ServersModule {}
