export * from './projects.module';
export * from './projects.host';
export { redactSecrets } from './project-views';
export { newClientKey, newServerKey } from './keys';
