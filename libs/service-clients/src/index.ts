// What one service asks of another, for the few services that ask it: the servers service as the lobbies
// and matchmaking services start and stop their games, the projects service's lobby configs, the active
// matcher's queue figures. Not in libs/platform, which holds only what every service needs.
export * from './game-servers';
export * from './lobby-configs';
export * from './live-queue-stats';
