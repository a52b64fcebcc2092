import 'reflect-metadata';
import { GraphQLSchema, isObjectType } from 'graphql';
import { buildSchema, type MiddlewareFn, type NonEmptyArray } from 'type-graphql';
import { requireViewer, type AppContext } from './context/context';
import { ValidationError } from './core/errors';
import { isRegisteredInput } from './core/validation/api-input';
import { validateInstance } from './core/validation/class-validation';
import { AccountResolver } from './modules/accounts/accounts.resolver';
import { WorkspaceResolver } from './modules/workspaces/workspaces.resolver';

/** Every resolver of the API, listed explicitly. */
export const RESOLVERS: NonEmptyArray<Function> = [AccountResolver, WorkspaceResolver];

/**
 * Every root Query and Mutation requires a viewer unless it is marked
 * @Public(); the guard test walks the schema to keep this true.
 */
const requireAuthentication: MiddlewareFn<AppContext> = ({ info, context }, next) => {
  const root = info.parentType;
  if (root === info.schema.getQueryType() || root === info.schema.getMutationType()) {
    const field = root.getFields()[info.fieldName];
    if (!field.extensions?.public) requireViewer(context);
  }
  return next();
};

/** class-validator rules on every input argument, reported pydantic style. */
function validateArgument(value: unknown, type: unknown): void {
  if (value === null || typeof value !== 'object') return;
  const prefix = isRegisteredInput(type) ? ['input'] : [];
  const items = Array.isArray(value)
    ? value.flatMap((item, index) => (item && typeof item === 'object' ? validateInstance(item, [...prefix, index]) : []))
    : validateInstance(value, prefix);
  if (items.length) throw new ValidationError(items);
}

let cached: Promise<GraphQLSchema> | undefined;

export function createSchema(): Promise<GraphQLSchema> {
  cached ??= buildSchema({
    resolvers: RESOLVERS,
    globalMiddlewares: [requireAuthentication],
    validateFn: validateArgument,
    emitSchemaFile: false,
  }).then((schema) => {
    if (!isObjectType(schema.getMutationType())) throw new Error('The schema has no mutations');
    return schema;
  });
  return cached;
}
