import { exampleOperationHashes } from '../core/trusted-documents';

/** `npm run graphql:trusted`: the example operations' hashes as a JSON array, a GRAPHQL_TRUSTED_DOCUMENTS file to start from. */
process.stdout.write(`${JSON.stringify([...exampleOperationHashes().values()].sort(), null, 2)}\n`);
