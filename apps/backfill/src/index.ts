export * from './backfill.module';
export * from './backfill.host';
