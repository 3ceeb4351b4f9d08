export * from './workflow';
export * from './lobby-launch';
export * from './lobby-server';
export * from './server-lifecycle';
export * from './lobby-queue';
export * from './match-formation';
export * from './backfill-roster';
export * from './targets';
