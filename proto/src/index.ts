export * from './subjects';
export * from './shared';
export * from './projects';
export * from './builds';
export * from './servers';
export * from './logs';
export * from './lobbies';
export * from './parked';
