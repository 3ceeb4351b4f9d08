export * from './servers.module';
export * from './servers.host';
export { RUNTIME } from './runtime';
