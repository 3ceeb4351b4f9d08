#!/usr/bin/env node
// Zips examples/game-server/ into a build ZIP ready to upload: node examples/zip-build.js [out.zip]
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
zip.end();
zip.outputStream.pipe(fs.createWriteStream(out)).on('close', () => console.log(out));
