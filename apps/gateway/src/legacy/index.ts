export * from './legacy-lobby';
export * from './legacy-lobby-api';
