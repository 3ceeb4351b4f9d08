export * from './backfill';
