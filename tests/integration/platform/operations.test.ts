import { buildClientSchema, getIntrospectionQuery, Kind, validate, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { gql } from '../../helpers/http';
import { operationDocument, operationIndex } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

/**
 * graphql/operations/*.graphql hold named example operations, one file per
 * domain. They are checked against the schema the server actually serves
 * (introspection over HTTP), so renaming or removing a field breaks the suite
 * instead of leaving stale examples behind.
 */
const DOMAIN_FILES = [
  'accounts.graphql',
  'api-keys.graphql',
  'assessments.graphql',
  'catalogs.graphql',
  'evaluations.graphql',
  'integrations.graphql',
  'members.graphql',
  'organizations.graphql',
  'projects.graphql',
  'secrets.graphql',
  'session-groups.graphql',
  'sessions.graphql',
  'traces.graphql',
  'workflow-runs.graphql',
  'workspaces.graphql',
];

const api = useTestApp();
let schema: GraphQLSchema;

beforeAll(async () => {
  const res = await gql<IntrospectionQuery>(api, getIntrospectionQuery());
  expect(res.body.errors).toBeUndefined();
  schema = buildClientSchema(res.body.data!);
});

describe('named example operations', () => {
  it('keeps one operations file per domain', () => {
    expect(operationIndex().files).toEqual(DOMAIN_FILES);
  });

  it('validates every operation against the served schema', () => {
    const problems: string[] = [];
    for (const name of operationIndex().operations.keys()) {
      for (const error of validate(schema, operationDocument(name))) problems.push(`${name}: ${error.message}`);
    }
    expect(problems).toEqual([]);
    expect(operationIndex().operations.size).toBeGreaterThan(40);
  });

  it('uses every fragment in at least one operation', () => {
    const used = new Set<string>();
    for (const name of operationIndex().operations.keys()) {
      for (const definition of operationDocument(name).definitions) {
        if (definition.kind === Kind.FRAGMENT_DEFINITION) used.add(definition.name.value);
      }
    }
    expect([...operationIndex().fragments.keys()].filter((name) => !used.has(name))).toEqual([]);
  });

  it('has an example for every root query and mutation of the served schema', () => {
    const covered = new Set<string>();
    for (const { node } of operationIndex().operations.values()) {
      const root = node.operation === 'mutation' ? 'Mutation' : 'Query';
      for (const selection of node.selectionSet.selections) {
        if (selection.kind === Kind.FIELD) covered.add(`${root}.${selection.name.value}`);
      }
    }
    const roots = [
      ...Object.keys(schema.getQueryType()!.getFields()).map((name) => `Query.${name}`),
      ...Object.keys(schema.getMutationType()!.getFields()).map((name) => `Mutation.${name}`),
    ];
    expect(roots.filter((name) => !covered.has(name)).sort()).toEqual([]);
  });
});
