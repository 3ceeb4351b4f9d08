#!/usr/bin/env node
// Zips examples/game-server/ into a build ZIP ready to upload: node examples/zip-build.js [out.zip]
// The game-side SDK (@spawnpoint/game-server, its built CommonJS file) goes in as node_modules, so the
// game needs no npm install on the machine; unbuilt, the ZIP is made without it (the game then runs
// without the game API) and a warning says so.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const yazl = require('yazl');

const source = path.join(__dirname, 'game-server');
const out = path.resolve(process.argv[2] ?? path.join(__dirname, 'game-server.zip'));

/** Files under dir, relative to it, sorted so the archive is the same on every run. */
function listFiles(dir, prefix = '') {
  return fs.readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const relative = path.posix.join(prefix, entry.name);
      return entry.isDirectory() ? listFiles(dir, relative) : [relative];
    });
}

const zip = new yazl.ZipFile();
for (const file of listFiles(source)) {
  const mode = (fs.statSync(path.join(source, file)).mode & 0o777);
  // The entry point must stay executable even when checked out without its mode bit (e.g. on Windows).
  const permissions = file === 'server' ? 0o755 : mode;
  zip.addFile(path.join(source, file), file, { mode: fs.constants.S_IFREG | permissions });
}
const sdkDist = path.join(__dirname, '..', 'packages', 'game-server', 'dist', 'index.js');
if (fs.existsSync(sdkDist)) {
  const sdkDir = 'node_modules/@spawnpoint/game-server';
  const { name, version, license } = require('../packages/game-server/package.json');
  zip.addBuffer(Buffer.from(JSON.stringify({ name, version, license, main: 'index.js' }, null, 2) + '\n'), `${sdkDir}/package.json`, { mode: fs.constants.S_IFREG | 0o644 });
  zip.addFile(sdkDist, `${sdkDir}/index.js`, { mode: fs.constants.S_IFREG | 0o644 });
} else {
  console.error('warning: packages/game-server is not built (npm run build): the ZIP has no @spawnpoint/game-server');
}
zip.end();
zip.outputStream.pipe(fs.createWriteStream(out)).on('close', () => console.log(out));
