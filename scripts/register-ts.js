// Compiles every .ts file on require with swc, with the same options jest
// uses (.swcrc), which keeps the decorator metadata type-graphql and
// sequelize-typescript need. Loaded by scripts/run.js, and by worker threads
// started from TypeScript sources (`--require`, see
// src/modules/traces/export-threads.ts).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const swc = require('@swc/core');
const options = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8'));
delete options.$schema;
require.extensions['.ts'] = function compileTs(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = swc.transformSync(source, { ...options, filename, swcrc: false });
  module._compile(code, filename);
};
process.setSourceMapsEnabled?.(true);
