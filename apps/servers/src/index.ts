export * from './servers.module';
export * from './servers.service';
