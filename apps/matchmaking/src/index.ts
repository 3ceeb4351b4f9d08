export * from './matchmaking.module';
export * from './matchmaking.host';
export { QueueBook } from './queue-book';
