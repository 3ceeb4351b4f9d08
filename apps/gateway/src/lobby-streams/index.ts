export * from './lobby-streams';
export * from './sse';
export * from './project-streams';
