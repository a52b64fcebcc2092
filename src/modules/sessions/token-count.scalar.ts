import { GraphQLScalarType } from 'graphql';
import { GraphQLSafeInt } from 'graphql-scalars';

/** Token sums can pass 2^31: integers up to 2^53 (JSON integers on the wire). */
export const TokenCountScalar = new GraphQLScalarType({
  ...GraphQLSafeInt.toConfig(),
  name: 'TokenCount',
  description: 'A token count: an integer up to 2^53 - 1.',
  extensions: { errorType: 'int_parsing', jsonSchema: { type: 'integer', format: 'int64' } },
});
