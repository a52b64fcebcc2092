import 'reflect-metadata';
import fs from 'node:fs';
import { createApp } from '../app';
import { OPENAPI_FILE, printOpenApi } from '../core/schema-file';

/** Writes graphql/openapi.json (the document served at /api/v1/openapi.json). */
async function main(): Promise<void> {
  const app = await createApp();
  fs.writeFileSync(OPENAPI_FILE, printOpenApi(app.openApi()));
  await app.stop();
  process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
}

void main();
