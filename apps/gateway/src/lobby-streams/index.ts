export * from './lobby-streams';
export * from './sse';
