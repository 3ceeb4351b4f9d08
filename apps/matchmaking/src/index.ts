export * from './matchmaking.module';
export * from './matchmaking.host';
export { QueueBook } from './queue-book';
export { QueueBookProxy } from './queue-book-proxy';
