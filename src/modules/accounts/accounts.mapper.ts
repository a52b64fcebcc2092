import type { UserRecord } from '../../../models';
import { columns, valuesJson } from '../../core/graphql-sql/sql-fields';
import type { UserIdentityResponse, UserResponse } from './accounts.types';

/** The only place a user row becomes a GraphQL identity (no hashes leak). */
export function toUserIdentity(user: Pick<UserRecord, 'id' | 'email' | 'username' | 'full_name'>): UserIdentityResponse {
  return { email: user.email, full_name: user.full_name, id: user.id, username: user.username };
}

/** toUserIdentity in SQL (core/graphql-sql): the fields of an identity over a `users` row, in reply order. */
export const USER_IDENTITY_SQL = columns('email', 'full_name', 'id', 'username');

/** toUserIdentity in SQL: the identity of `users` row `alias` as JSON, null when the join found none (@RestJson replies). */
export function userIdentityJson(alias: string): string {
  return `CASE WHEN ${alias}.id IS NULL THEN NULL ELSE ${valuesJson(USER_IDENTITY_SQL, alias)} END`;
}

export function toUserResponse(user: UserRecord): UserResponse {
  return {
    id: user.id,
    email_address: user.email,
    username: user.username,
    full_name: user.full_name,
    email_opt_in: user.email_opt_in,
    created_at: user.created_at,
  };
}
