import 'reflect-metadata';
import { GraphQLSchema, isObjectType } from 'graphql';
import { buildSchema, type NonEmptyArray, type ResolverData } from 'type-graphql';
import { requireViewer, type AppContext } from './core/context';
import { ValidationError } from './core/errors';
import { settledTogether } from './core/root-errors';
import { isRegisteredInput } from './core/validation/api-input';
import { validateInstance } from './core/validation/class-validation';
import { fillMissingDescriptions } from './core/schema-descriptions';
import { platform } from './modules';

/**
 * Every root Query and Mutation requires a viewer unless it is marked
 * @Public(); the guard test walks the schema to keep this true. The check
 * wraps root resolvers only (outside type-graphql's argument validation, so
 * 401 comes before 422), leaving nested fields without per-field overhead.
 * A query's root fields also settle together, so that every one's error is
 * reported (core/root-errors.ts).
 */
function wrapRootFields(schema: GraphQLSchema): void {
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      if (!field.resolve) continue;
      const resolve = field.resolve;
      const guarded: typeof resolve = field.extensions?.public
        ? resolve
        : (source, args, context: AppContext, info) => {
            requireViewer(context);
            return resolve(source, args, context, info);
          };
      field.resolve = root === schema.getQueryType() ? settledTogether(guarded) : guarded;
    }
  }
}

/**
 * class-validator rules on every input argument, reported pydantic style.
 * REST bodies were already checked with the same rules (readRestVariables).
 */
function validateArgument(value: unknown, type: unknown, { context }: ResolverData): void {
  if (value === null || typeof value !== 'object') return;
  const isInput = isRegisteredInput(type);
  if (isInput && (context as AppContext).rest) return;
  const prefix = isInput ? ['input'] : [];
  const items = Array.isArray(value)
    ? value.flatMap((item, index) => (item && typeof item === 'object' ? validateInstance(item, [...prefix, index]) : []))
    : validateInstance(value, prefix);
  if (items.length) throw new ValidationError(items);
}

let cached: Promise<GraphQLSchema> | undefined;

export function createSchema(): Promise<GraphQLSchema> {
  cached ??= buildSchema({
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- type-graphql's type for resolver classes
    resolvers: platform.resolvers as NonEmptyArray<Function>,
    validateFn: validateArgument,
    emitSchemaFile: false,
  }).then((schema) => {
    if (!isObjectType(schema.getMutationType())) throw new Error('The schema has no mutations');
    fillMissingDescriptions(schema);
    wrapRootFields(schema);
    return schema;
  });
  return cached;
}
