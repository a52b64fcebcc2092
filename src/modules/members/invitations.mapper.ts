import type { InvitationModel } from '../../../models';
import type { InvitationResponse, InvitationSentResponse, UserInvitationResponse } from './invitations.types';
import type { InvitationRecord, UserInvitationRecord } from './invitations.service';
import type { MemberRole } from './members.types';

/** The reply of an invitation: no user id or profile, whatever the address. */
export function toInvitationSent(row: InvitationModel): InvitationSentResponse {
  return { status: 'invited', email: row.email, role: row.role as MemberRole, expires_at: row.expires_at };
}

export function toInvitation(row: InvitationRecord): InvitationResponse {
  return {
    id: row.id,
    email: row.email,
    role: row.role as MemberRole,
    invited_by: { username: row.inviter_username },
    created_at: row.created_at,
    expires_at: row.expires_at,
  };
}

export function toUserInvitation(row: UserInvitationRecord): UserInvitationResponse {
  return {
    id: row.id,
    org_key: row.org_key,
    org_name: row.org_name,
    role: row.role as MemberRole,
    invited_by: { username: row.inviter_username },
    created_at: row.created_at,
    expires_at: row.expires_at,
  };
}
