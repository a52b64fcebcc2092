import { buildOperationNodeForField } from '@graphql-tools/utils';
import { getNullableType, isNonNullType, OperationTypeNode, print, type GraphQLField } from 'graphql';
import type { RestRoute } from '../../../src/core/graphql-decorators';
import { gql, rest } from '../../helpers/http';
import { sampleValue } from '../../helpers/sample-values';
import { useTestApp } from '../../helpers/test-app';

/**
 * Every root Query and Mutation needs credentials, except this explicit
 * allow-list. Adding a public operation means adding it here on purpose.
 */
const PUBLIC_OPERATIONS = [
  // Device-code login: the device has no credential yet (decisions §14).
  'Mutation.create_device_code',
  'Mutation.device_token',
  'Mutation.forgot_password',
  'Mutation.login',
  'Mutation.resend_verification',
  'Mutation.reset_password',
  'Mutation.signup',
  'Mutation.verify_email',
  'Query.device_code_status',
];

const api = useTestApp();

function rootFields(): { kind: 'Query' | 'Mutation'; field: GraphQLField<unknown, unknown> }[] {
  const schema = api.app.schema;
  return [
    ...Object.values(schema.getQueryType()!.getFields()).map((field) => ({ kind: 'Query' as const, field })),
    ...Object.values(schema.getMutationType()!.getFields()).map((field) => ({ kind: 'Mutation' as const, field })),
  ];
}

describe('authentication guard', () => {
  it('marks exactly the allow-listed operations as public', () => {
    const marked = rootFields()
      .filter(({ field }) => field.extensions?.public)
      .map(({ kind, field }) => `${kind}.${field.name}`)
      .sort();
    expect(marked).toEqual(PUBLIC_OPERATIONS.filter((name) => marked.includes(name)));
    expect(marked.length).toBeGreaterThan(0);
  });

  it('answers every non-public GraphQL root field without credentials with 401 authentication_error', async () => {
    const schema = api.app.schema;
    const failures: string[] = [];
    for (const { kind, field } of rootFields()) {
      if (field.extensions?.public) continue;
      const operation = buildOperationNodeForField({ schema, kind: kind === 'Query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION, field: field.name, circularReferenceDepth: 1 });
      const variables = Object.fromEntries(
        field.args.filter((arg) => isNonNullType(arg.type)).map((arg) => [arg.name, sampleValue(getNullableType(arg.type) as never)]),
      );
      const res = await gql(api, print({ kind: 'Document', definitions: [operation] } as never), variables);
      const type = res.body.errors?.[0]?.extensions?.type;
      if (type !== 'authentication_error') failures.push(`${kind}.${field.name}: ${JSON.stringify(res.body.errors ?? res.body.data)}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers every non-public REST route without credentials with 401', async () => {
    const failures: string[] = [];
    for (const { field } of rootFields()) {
      const route = field.extensions?.rest as RestRoute | undefined;
      if (!route || field.extensions?.public) continue;
      const path = route.path.replace(/:(\w+)/g, () => '00000000-0000-4000-8000-00000000beef');
      const res = await rest(api, route.method, path, route.method === 'GET' ? {} : { body: {} });
      if (res.status !== 401 || res.body.type !== 'authentication_error') failures.push(`${route.method} ${route.path}: ${res.status}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('the check before validation, per request', () => {
  it('answers the same document 200 with credentials and 401 without, whichever came first (its verdict is kept per text, never per caller)', async () => {
    const { createUser } = await import('../../factories/accounts');
    const user = await createUser();
    const query = `query GuardRepeat { user { id } }`;
    const signedIn = await gql(api, query, {}, user.token);
    expect([signedIn.status, signedIn.body.errors]).toEqual([200, undefined]);
    const anonymous = await gql(api, query, {});
    expect(anonymous.status).toBe(401);
    expect((await gql(api, query, {}, user.token)).status).toBe(200);
  });
});
