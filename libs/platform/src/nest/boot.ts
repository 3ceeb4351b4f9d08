// Starts one service as its own process (distributed mode): no HTTP, just the bus.
import { Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from './config';
import { PlatformModule } from './platform.module';
import { exitOnShutdownSignals } from './shutdown';
import { setupTracing } from './tracing';

export async function bootService(name: string, serviceModule: Type<unknown>): Promise<void> {
  setupTracing(name);
  const config = loadConfig(process.env, 'distributed');
  @Module({ imports: [PlatformModule.forRoot(config, name), serviceModule] })
  class ServiceRoot {}
  // abortOnError false: a failed start is reported below, not by process.abort().
  const started = NestFactory.createApplicationContext(ServiceRoot, { logger: ['error', 'warn'], abortOnError: false });
  // Not Nest's shutdown hooks (they re-raise the signal after closing: exit 143); from the first moment.
  exitOnShutdownSignals(name, async () => {
    const app = await started.catch(() => null);
    await app?.close();
  });
  try {
    await started;
  } catch (err) {
    console.error(`spawnpoint ${name}: could not start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
  console.log(`spawnpoint ${name} service ready (NATS ${config.natsUrl})`);
}
