import type { RecordOf, SessionGroupModel } from '../../../models';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import { SessionGroupSummary } from './session-groups.types';

/** Row → GraphQL type (the columns its fields declare; metadata stays internal), with the keys its navigation uses. */
export function toSessionGroup(row: RecordOf<SessionGroupModel>): SessionGroupSummary {
  return Object.assign(fromRow(SessionGroupSummary, row), { workspace_id: row.workspace_id, project_id: row.project_id });
}
