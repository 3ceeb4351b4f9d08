// What the sample game's build unpacks to (examples/zip-build.js): the game, and the game-server SDK it
// uses, vendored from its build. As `tar -tzf` lists the build's artifact (no `./` entry).
export const SAMPLE_BUILD_ENTRIES = [
  './node_modules/', './node_modules/@spawnpoint/', './node_modules/@spawnpoint/game-server/',
  './node_modules/@spawnpoint/game-server/index.js', './node_modules/@spawnpoint/game-server/package.json', './server', './server.js',
];
