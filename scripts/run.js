#!/usr/bin/env node
// Runs a TypeScript entry point without a build step: every .ts file is
// compiled on require by swc with the same options jest uses (.swcrc), which
// keeps the decorator metadata type-graphql and sequelize-typescript need.
// Usage: node scripts/run.js [--watch] path/to/entry.ts [args...]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

const args = process.argv.slice(2);
if (args[0] === '--watch') {
  const { spawn } = require('node:child_process');
  const child = spawn(process.execPath, ['--watch-path=src', '--watch-path=models', '--watch-path=migrations', __filename, ...args.slice(1)], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
  return;
}
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
const entry = path.resolve(args[0]);
process.argv = [process.argv[0], entry, ...args.slice(1)];
// Workers forked by node:cluster (WEB_CONCURRENCY) start through this runner too.
const cluster = require('node:cluster');
if (cluster.isPrimary) cluster.setupPrimary({ exec: __filename, args: [entry, ...args.slice(1)] });
Module._load(entry, null, true);
