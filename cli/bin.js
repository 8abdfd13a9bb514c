#!/usr/bin/env node
'use strict';
// Launcher of the billing-dedup CLI: runs cli/main.ts through tsx's CommonJS hook (tsx is a devDependency,
// so `npm ci` in a clone is all it needs). Kept tiny and in plain JS: it is the only committed .js file.
require('tsx/cjs');
const { main } = require('./main.ts');

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(
      `billing-dedup: unexpected error: ${error && error.stack ? error.stack : error}\n`,
    );
    process.exitCode = 1;
  },
);
