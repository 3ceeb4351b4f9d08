export * from './projects.module';
export * from './projects.service';
export * from './lobbies';
