export * from './mode';
export * from './rating';
export * from './teams';
export * from './region';
export * from './match';
export * from './engine';
export * from './queue';
export * from './explain';
