import type { MembershipModel, UserModel } from '../../../models';
import type { MemberResponse, MemberRole } from './members.types';

/** Membership + user row → member (never exposes hashes). */
export function toMember(membership: MembershipModel, user: UserModel): MemberResponse {
  return {
    user_id: user.id,
    email: user.email,
    username: user.username,
    full_name: user.full_name,
    role: membership.role as MemberRole,
    joined_at: membership.created_at,
  };
}
