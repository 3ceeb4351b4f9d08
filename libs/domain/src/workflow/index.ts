export * from './workflow';
export * from './lobby-launch';
export * from './lobby-server';
export * from './server-lifecycle';
