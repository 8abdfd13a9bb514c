#!/usr/bin/env node
// `npm start`: runs local/main.ts through tsx (a devDependency, installed by `npm ci`).
require('tsx/cjs');
const { main } = require('./main.ts');

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // Everything is stopped by now; do not let a stray keep-alive socket hold the process open.
  setTimeout(() => process.exit(code), 2000).unref();
});
