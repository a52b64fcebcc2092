import { config, overrideConfig } from '../../../src/config/config';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { b64, capabilityBody, catalogName, publishCapability } from '../../factories/catalogs';
import { gql } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * A capability's README may be tens of MiB (a publish body's files): each
 * read counts it against the request's reply budget (core/reply-budget.ts),
 * so aliased reads take turns and those after the budget is passed are
 * refused before they read anything.
 */
const api = useTestApp();
let owner: TestUser;
const before = config().MAX_REPLY_BYTES;
afterAll(() => overrideConfig({ MAX_REPLY_BYTES: before }));

beforeAll(async () => {
  owner = (await createOrgWithRoles()).owner;
});

it('refuses aliased README reads past MAX_REPLY_BYTES with reply_too_large, answering the ones within it', async () => {
  const name = catalogName('readme-budget');
  const body = capabilityBody(name);
  (body.files as { path: string; content_base64: string }[])[1].content_base64 = b64(`# Big\n${'r'.repeat(12_000)}`);
  await publishCapability(api, owner, body, owner.orgKey);
  const field = (alias: string) => `${alias}: capability_readme(org: $org, name: "${name}") { content }`;
  const read = (aliases: string[]) => gql(api, `query ($org: String!) { ${aliases.map(field).join(' ')} }`, { org: owner.orgKey }, owner.token);
  overrideConfig({ MAX_REPLY_BYTES: 32 * 1024 });
  const two = await read(['a', 'b']);
  expect(two.body.errors).toBeUndefined();
  expect(two.body.data.a.content).toHaveLength(12_006);
  const three = await read(['a', 'b', 'c']);
  expect(three.status).toBe(200);
  expect(three.body.errors).toHaveLength(1);
  expect(three.body.errors![0].extensions).toMatchObject({ status: 422, errors: [{ loc: ['body', 'query'], type: 'reply_too_large' }] });
});
