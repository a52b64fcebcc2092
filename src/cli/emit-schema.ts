import 'reflect-metadata';
import fs from 'node:fs';
import { createSchema } from '../schema';
import { printApiSchema, SCHEMA_FILE } from '../core/schema-file';

/** Writes graphql/schema.graphql from the code. */
async function main(): Promise<void> {
  fs.writeFileSync(SCHEMA_FILE, printApiSchema(await createSchema()));
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
}

void main();
