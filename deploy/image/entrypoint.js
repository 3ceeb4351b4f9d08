#!/usr/bin/env node
// The image's entrypoint: starts the app named by the first argument, else SPAWNPOINT_APP.
'use strict';
const path = require('node:path');
const fs = require('node:fs');

const APPS = ['gateway', 'projects', 'builds', 'servers', 'lobbies', 'matchmaking', 'backfill'];
const app = process.argv[2] || process.env.SPAWNPOINT_APP;
if (!app || !APPS.includes(app)) {
  console.error(`spawnpoint image: name the app to run as the first argument or SPAWNPOINT_APP: one of ${APPS.join(', ')}${app ? ` (not "${app}")` : ''}`);
  process.exit(64);
}
const main = path.join(__dirname, 'apps', app, 'dist', 'main.js');
if (!fs.existsSync(main)) {
  console.error(`spawnpoint image: ${main} is missing; the image was built without the ${app} app`);
  process.exit(70);
}
process.argv.splice(2, 1);
require(main);
