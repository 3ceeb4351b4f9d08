export * from './kit';
export * from './catalog';
export * from './project';
export * from './build';
export * from './server';
export * from './lobby';
export * from './workflow';
export * from './matchmaking';
