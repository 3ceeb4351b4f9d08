// Starts one service as its own process (distributed mode): no HTTP, just the bus.
import { Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from './config';
import { PlatformModule } from './platform.module';
import { setupTracing } from './tracing';

export async function bootService(name: string, serviceModule: Type<unknown>): Promise<void> {
  setupTracing(name);
  const config = loadConfig(process.env, 'distributed');
  @Module({ imports: [PlatformModule.forRoot(config, name), serviceModule] })
  class ServiceRoot {}
  const app = await NestFactory.createApplicationContext(ServiceRoot, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  console.log(`spawnpoint ${name} service ready (NATS ${config.natsUrl})`);
}
