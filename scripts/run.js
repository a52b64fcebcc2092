#!/usr/bin/env node
// Runs a TypeScript entry point without a build step: every .ts file is
// compiled on require by swc (scripts/register-ts.js).
// Usage: node scripts/run.js [--watch] path/to/entry.ts [args...]
'use strict';
const path = require('node:path');
const Module = require('node:module');

const args = process.argv.slice(2);
if (args[0] === '--watch') {
  const { spawn } = require('node:child_process');
  const child = spawn(process.execPath, ['--watch-path=src', '--watch-path=models', '--watch-path=migrations', __filename, ...args.slice(1)], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
  return;
}
require('./register-ts');
const entry = path.resolve(args[0]);
process.argv = [process.argv[0], entry, ...args.slice(1)];
// Workers forked by node:cluster (WEB_CONCURRENCY) start through this runner too.
const cluster = require('node:cluster');
if (cluster.isPrimary) cluster.setupPrimary({ exec: __filename, args: [entry, ...args.slice(1)] });
Module._load(entry, null, true);
