#!/usr/bin/env node
// The installed command: a committed file (npm links bins at install time, before the build exists).
require('../dist/main.js');
