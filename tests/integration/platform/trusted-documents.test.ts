import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, print } from 'graphql';
import { config, overrideConfig } from '../../../src/config/config';
import { exampleOperationHashes, operationHash } from '../../../src/core/trusted-documents';
import { createUser, type TestUser } from '../../factories/accounts';
import { gql } from '../../helpers/http';
import { operationDocument, runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

/** GRAPHQL_TRUSTED_DOCUMENTS: only operations on the allow-list run, whatever their formatting. */
const api = useTestApp();
let owner: TestUser;
const saved = config().GRAPHQL_TRUSTED_DOCUMENTS;

beforeAll(async () => {
  owner = await createUser();
});

afterEach(() => overrideConfig({ GRAPHQL_TRUSTED_DOCUMENTS: saved }));

it('runs the example operations and refuses any other document (403)', async () => {
  overrideConfig({ GRAPHQL_TRUSTED_DOCUMENTS: 'examples' });
  const current = await runOperation(api, 'CurrentUser', {}, owner.token);
  expect([current.status, current.body.errors]).toEqual([200, undefined]);
  // The same operation formatted otherwise, with a comment, is the same operation.
  const reformatted = `# sent by another client\n${print(operationDocument('CurrentUser')).replace(/\n\s*/g, ' ')}`;
  expect((await gql(api, reformatted, {}, owner.token)).body.errors).toBeUndefined();
  const adHoc = await gql(api, '{ user { id } }', {}, owner.token);
  expect([adHoc.status, adHoc.body.data, adHoc.body.errors?.[0]?.extensions?.type]).toEqual([403, undefined, 'forbidden_error']);
  const introspection = await gql(api, '{ __schema { queryType { name } } }', {}, owner.token);
  expect(introspection.status).toBe(403);
});

it('reads a list of hashes from a file', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'trusted-')), 'trusted.json');
  fs.writeFileSync(file, JSON.stringify([operationHash(parse('{ user { username } }'))]));
  overrideConfig({ GRAPHQL_TRUSTED_DOCUMENTS: file });
  expect((await gql(api, 'query { user { username } }', {}, owner.token)).body).toEqual({ data: { user: { username: owner.username } } });
  expect((await gql(api, '{ user { id } }', {}, owner.token)).status).toBe(403);
  expect((await runOperation(api, 'CurrentUser', {}, owner.token)).status).toBe(403);
});

it('names each example operation by one hash, independent of the files it is spread over', () => {
  const hashes = exampleOperationHashes();
  expect(hashes.size).toBeGreaterThan(20);
  expect(new Set(hashes.values()).size).toBe(hashes.size);
  expect(hashes.get('CurrentUser')).toBe(operationHash(operationDocument('CurrentUser')));
});
