import 'reflect-metadata';
import { parse, printSchema, type GraphQLSchema } from 'graphql';
import { Arg, buildSchema, Field, ObjectType, Query, Resolver } from 'type-graphql';
import type { AppContext } from '../../../src/core/context';
import { Public, Rest } from '../../../src/core/graphql-decorators';
import { createEngine, SqlData } from '../../../src/core/graphql-sql/engine';
import { fromRow, Sql, SqlRootField, timestamp } from '../../../src/core/graphql-sql/sql-fields';
import { logger } from '../../../src/config/logger';
import { createRestRouter } from '../../../src/http/rest-routes';
import { useTestApp } from '../../helpers/test-app';

/**
 * The README's add-a-field recipe on a fixture type: a nullable field is its
 * declaration (GraphQL type and SQL side by side) and nothing else. The
 * GraphQL schema, the compiled reply, the REST reply (key in declaration
 * order) and the OpenAPI schema all show it.
 */
useTestApp();

// The row a migration would have added a `nickname` column to.
const ROW = `(SELECT 'f1'::text AS id, 'first' AS name, 'nick'::text AS nickname, '2026-01-02T03:04:05Z'::timestamptz AS created_at)`;

@ObjectType('FixtureThing')
class FixtureThing {
  @Sql()
  @Field(() => String)
  id: string;

  @Sql()
  @Field(() => String)
  name: string;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;
}

@ObjectType('FixtureThing')
class FixtureThingWithNickname extends FixtureThing {
  // The added field: this declaration (and the migration adding the column) is the whole change.
  @Sql()
  @Field(() => String, { nullable: true })
  nickname: string | null;
}

const root = { from: async (_ctx: AppContext, _args: Record<string, unknown>, _params: unknown, as: string) => `${ROW} ${as}` };

@Resolver()
class FixtureResolver {
  @Query(() => FixtureThing)
  @Public()
  @Rest('GET', '/fixture/:thing_id')
  @SqlRootField(root)
  thing(@Arg('thing_id', () => String) _id: string): FixtureThing {
    return fromRow(FixtureThing, { id: 'f1', name: 'first', created_at: new Date('2026-01-02T03:04:05Z') });
  }
}

@Resolver()
class FixtureWithNicknameResolver {
  @Query(() => FixtureThingWithNickname)
  @Public()
  @Rest('GET', '/fixture/:thing_id')
  @SqlRootField(root)
  thing(@Arg('thing_id', () => String) _id: string): FixtureThingWithNickname {
    return fromRow(FixtureThingWithNickname, { id: 'f1', name: 'first', nickname: 'nick', created_at: new Date('2026-01-02T03:04:05Z') });
  }
}

function fixtureContext(path: string): AppContext {
  return {
    requestId: 'fixture',
    headers: { get: () => null },
    ip: '127.0.0.1',
    logger,
    viewer: null,
    authFailure: null,
    loaders: {},
    response: { headers: {} },
    rest: { method: 'GET', path, query: new URLSearchParams(), body: undefined, bodyError: null },
    operation: null,
    tenant: null,
    prefetched: null,
  } as unknown as AppContext;
}

/** The fixture type as GraphQL, the compiled reply, the REST reply and the OpenAPI schema show it. */
async function everyView(schema: GraphQLSchema) {
  const engine = createEngine(schema);
  const compiled = await engine.execute({ document: parse('{ thing(thing_id: "f1") { id name created_at nickname: __typename } }') }, fixtureContext('/graphql'));
  const router = createRestRouter(schema, engine);
  const plan = router.plans.get('Query.thing')!;
  const reply = await router.run(plan, fixtureContext('/api/v1/fixture/f1'), { thing_id: 'f1' });
  const components = (router.openAPIDocument as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }).components;
  return {
    sdl: printSchema(schema),
    compiled,
    rest: 'text' in reply ? reply.text : JSON.stringify(reply),
    openApiFields: Object.keys(components.schemas.FixtureThing.properties),
  };
}

it('a nullable field added to a type is its declaration: GraphQL, the compiled reply, REST (in order) and OpenAPI show it', async () => {
  const before = await everyView(await buildSchema({ resolvers: [FixtureResolver], validate: false }));
  const after = await everyView(await buildSchema({ resolvers: [FixtureWithNicknameResolver], validate: false }));

  expect(before.sdl).not.toContain('nickname');
  expect(after.sdl).toMatch(/type FixtureThing \{[^}]*\n {2}nickname: String\n/);

  // Both are answered by one statement (SqlData), read from the same row.
  expect(before.compiled.data).toBeInstanceOf(SqlData);
  expect(after.compiled.data).toBeInstanceOf(SqlData);
  expect((after.compiled.data as SqlData).text).toBe('{"thing":{"id":"f1","name":"first","created_at":"2026-01-02T03:04:05.000Z","nickname":"FixtureThing"}}');

  // REST runs Sofa's document for the route through the same engine: the new key comes where it is declared.
  expect(before.rest).toBe('{"id":"f1","name":"first","created_at":"2026-01-02T03:04:05.000Z"}');
  expect(after.rest).toBe('{"id":"f1","name":"first","created_at":"2026-01-02T03:04:05.000Z","nickname":"nick"}');

  expect(before.openApiFields).toEqual(['id', 'name', 'created_at']);
  expect(after.openApiFields).toEqual(['id', 'name', 'created_at', 'nickname']);
});
