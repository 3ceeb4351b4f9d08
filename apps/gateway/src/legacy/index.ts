export * from './legacy-lobby';
export * from './legacy-lobby-api';
export { LEGACY_TOKEN_HEADER, MAX_LEGACY_LIST } from './legacy-lobbies';
