import type { OrganizationRecord } from '../../../models';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import { OrganizationResponse } from './organizations.types';

/** Row → GraphQL type (its declared fields), with whether the caller may manage members; member_count resolves through a loader. */
export function toOrganization(row: OrganizationRecord, canManageMembers: boolean): OrganizationResponse {
  return Object.assign(fromRow(OrganizationResponse, row), { can_manage_members: canManageMembers });
}
