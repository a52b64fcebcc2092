import crypto from 'node:crypto';
import {
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLInputType,
} from 'graphql';

/** A well-typed value for a GraphQL input type (required fields only). */
export function sampleValue(type: GraphQLInputType): unknown {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return [sampleValue(nullable.ofType)];
  if (isEnumType(nullable)) return nullable.getValues()[0].name;
  if (isInputObjectType(nullable)) {
    const out: Record<string, unknown> = {};
    for (const field of Object.values(nullable.getFields())) {
      if (isNonNullType(field.type) && field.defaultValue === undefined) out[field.name] = sampleValue(field.type);
    }
    return out;
  }
  switch (nullable.name) {
    case 'Int':
      return 1;
    case 'Float':
      return 1.5;
    case 'Boolean':
      return true;
    case 'UUID':
      return crypto.randomUUID();
    case 'DateTimeISO':
      return new Date().toISOString();
    case 'JSONObject':
      return {};
    default:
      return 'sample';
  }
}
