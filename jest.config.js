/** @type {import('jest').Config} */
const fs = require('node:fs');
const swcrc = JSON.parse(fs.readFileSync(`${__dirname}/.swcrc`, 'utf8'));
delete swcrc.$schema;

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }] },
  globalSetup: '<rootDir>/tests/setup/global-setup.ts',
  globalTeardown: '<rootDir>/tests/setup/global-teardown.ts',
  setupFiles: ['<rootDir>/tests/setup/env.ts'],
  maxWorkers: 2,
  testTimeout: 30000,
};
