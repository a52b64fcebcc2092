import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Kind, parse, print, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { config } from '../config/config';
import { fragmentsUsed } from './graphql-selection';

/**
 * Trusted documents (GRAPHQL_TRUSTED_DOCUMENTS): only operations on an
 * allow-list run on /graphql, as a public API locks GraphQL down to the
 * queries its own clients send. An operation is named by its hash: SHA-256
 * (hex) of the operation and the fragments it uses, printed by graphql-js
 * (fragments by name), so a client's formatting, comments and unused
 * definitions do not change it. The list is `examples` (the example
 * operations of graphql/operations, which the SDK and dashboards send) or a
 * JSON file holding an array of hashes (`npm run graphql:trusted` prints the
 * examples' list to start from). REST routes run the server's own documents
 * and are not concerned.
 */

/** The example operations, one file per domain. */
export const OPERATIONS_DIR = path.resolve(__dirname, '../../graphql/operations');

/** The hash of the operation `operationName` selects in `document` (the only one when unnamed), or null when it selects none. */
export function operationHash(document: DocumentNode, operationName?: string | null): string | null {
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((item) => item.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
  if (!operation) return null;
  const text = [operation, ...fragmentsUsed(document, operation)].map((definition) => print(definition)).join('\n\n');
  return crypto.createHash('sha256').update(text).digest('hex');
}

/** Every example operation by name with its hash (the fragments of every example file are shared). */
export function exampleOperationHashes(): Map<string, string> {
  const files = fs.existsSync(OPERATIONS_DIR) ? fs.readdirSync(OPERATIONS_DIR).filter((file) => file.endsWith('.graphql')).sort() : [];
  const definitions = files.flatMap((file) => parse(fs.readFileSync(path.join(OPERATIONS_DIR, file), 'utf8')).definitions);
  const all: DocumentNode = { kind: Kind.DOCUMENT, definitions };
  const hashes = new Map<string, string>();
  for (const definition of definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION && definition.name) hashes.set(definition.name.value, operationHash(all, definition.name.value)!);
  }
  return hashes;
}

let loaded: { setting: string; hashes: Set<string> } | undefined;

/** The allow-list of GRAPHQL_TRUSTED_DOCUMENTS, or null when the mode is off (read once per setting). */
export function trustedHashes(): Set<string> | null {
  const setting = config().GRAPHQL_TRUSTED_DOCUMENTS;
  if (!setting) return null;
  if (loaded?.setting !== setting) {
    const hashes = setting === 'examples' ? [...exampleOperationHashes().values()] : (JSON.parse(fs.readFileSync(path.resolve(setting), 'utf8')) as unknown);
    if (!Array.isArray(hashes) || !hashes.every((hash) => typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash))) {
      throw new Error(`GRAPHQL_TRUSTED_DOCUMENTS: ${setting} must hold a JSON array of SHA-256 hex hashes`);
    }
    loaded = { setting, hashes: new Set(hashes as string[]) };
  }
  return loaded.hashes;
}
