import type { UserModel } from '../../../models';
import type { UserIdentityResponse } from './accounts.types';

/** The only place a user row becomes a GraphQL identity (no hashes leak). */
export function toUserIdentity(user: UserModel): UserIdentityResponse {
  return { email: user.email, full_name: user.full_name, id: user.id, username: user.username };
}
