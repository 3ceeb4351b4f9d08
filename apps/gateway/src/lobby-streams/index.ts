export * from './lobby-streams';
export * from './sse';
export * from './project-streams';
export * from './stream-quota';
