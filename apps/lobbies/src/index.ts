export * from './lobbies.module';
export * from './lobbies.service';
