import type { GraphQLFormattedError } from 'graphql';
import { toAppError } from './to-app-error';

/**
 * GraphQL side of the error mapping: the spec's type, status and validation
 * items go into `extensions`; unexpected failures are masked.
 */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const { appError } = toAppError(error, 'graphql');
  return {
    message: appError.message,
    locations: formatted.locations,
    path: formatted.path,
    extensions: {
      code: appError.type.toUpperCase(),
      type: appError.type,
      status: appError.status,
      ...(appError.errors ? { errors: appError.errors } : {}),
    },
  };
}
