export * from './lobbies.module';
export * from './lobbies.host';
export { MAX_PLAYER_STATE_BYTES, MAX_SETTINGS_BYTES } from './limits';
