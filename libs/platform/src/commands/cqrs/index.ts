export * from './bus-message';
export * from './bus-dispatch';
