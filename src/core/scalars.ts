import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { GraphQLJSON, GraphQLJSONObject, GraphQLSafeInt } from 'graphql-scalars';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

function parseUuid(value: unknown): string {
  if (!isUuid(value)) throw new GraphQLError('Input should be a valid UUID');
  return value.toLowerCase();
}

/** A UUID in canonical lower-case form; the REST layer reports `uuid_parsing`. */
export const UUIDScalar = new GraphQLScalarType({
  name: 'UUID',
  description: 'A UUID string, e.g. 0b9f6a8e-2d7c-4f7e-9a41-5c3e2f1d0a9b',
  serialize: (value) => String(value),
  parseValue: parseUuid,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('Input should be a valid UUID');
    return parseUuid(ast.value);
  },
  extensions: { errorType: 'uuid_parsing', jsonSchema: { type: 'string', format: 'uuid' } },
});

/** Free-form JSON objects (configs, labels, metadata). */
export const JSONObjectScalar = new GraphQLScalarType({
  ...GraphQLJSONObject.toConfig(),
  extensions: { errorType: 'dict_type', jsonSchema: { type: 'object', additionalProperties: true } },
});

/** Any JSON value. */
export const JSONScalar = new GraphQLScalarType({
  ...GraphQLJSON.toConfig(),
  extensions: { errorType: 'value_error', jsonSchema: {} },
});

/** Token sums can pass 2^31: integers up to 2^53 (JSON integers on the wire). */
export const TokenCountScalar = new GraphQLScalarType({
  ...GraphQLSafeInt.toConfig(),
  name: 'TokenCount',
  description: 'A count that may pass 2^31 (tokens, bytes, messages summed over sessions): an integer up to 2^53 - 1.',
  extensions: { errorType: 'int_parsing', jsonSchema: { type: 'integer', format: 'int64' } },
});
