import { print, type ExecutionArgs } from 'graphql';
import { useSofa } from 'sofa-api';
import { createRestRouter, REST_BASE, restOperations, restSchema } from '../../src/http/rest-routes';
import { createSchema } from '../../src/schema';
import { createEngine } from '../../src/core/graphql-sql/engine';

/**
 * REST requests run Sofa's operation document for their route without going
 * through Sofa's fetch handler: the documents must be exactly the ones Sofa's
 * own handler executes.
 */
describe('REST operation plans', () => {
  it('execute the same operation document as Sofa for every route', async () => {
    const schema = await createSchema();
    const { plans } = createRestRouter(schema, createEngine(schema));
    const seen = new Map<string, string>();
    const routes: Record<string, { method: string; path: string }> = {};
    for (const operation of restOperations(schema)) routes[`${operation.kind}.${operation.field.name}`] = operation.route;
    const sofa = useSofa({
      schema: restSchema(schema),
      basePath: REST_BASE,
      routes,
      openAPI: { endpoint: false },
      swaggerUI: { endpoint: false },
      execute: (args: ExecutionArgs) => {
        const root = args.document.definitions[0] as unknown as { operation: string; selectionSet: { selections: { name: { value: string } }[] } };
        const kind = root.operation === 'mutation' ? 'Mutation' : 'Query';
        seen.set(`${kind}.${root.selectionSet.selections[0].name.value}`, print(args.document));
        return { data: {} };
      },
    } as never);

    for (const operation of restOperations(schema)) {
      const path = operation.route.path.replace(/:([a-z_]+)/g, 'x');
      const method = operation.route.method;
      const body = method === 'GET' || method === 'DELETE' ? undefined : '{}';
      await sofa.fetch(new Request(`http://localhost${REST_BASE}${path}`, { method, body, headers: body ? { 'content-type': 'application/json' } : {} }));
    }

    expect(seen.size).toBe(plans.size);
    for (const [key, plan] of plans) expect([key, print(plan.document)]).toEqual([key, seen.get(key)]);
  });
});
