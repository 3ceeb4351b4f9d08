export * from './builds.module';
export * from './builds.host';
