import type { UserRecord } from '../../../models';
import type { UserIdentityResponse, UserResponse } from './accounts.types';

/** The only place a user row becomes a GraphQL identity (no hashes leak). */
export function toUserIdentity(user: Pick<UserRecord, 'id' | 'email' | 'username' | 'full_name'>): UserIdentityResponse {
  return { email: user.email, full_name: user.full_name, id: user.id, username: user.username };
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
