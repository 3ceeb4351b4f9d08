export * from './mode';
export * from './rating';
export * from './teams';
