import type { RecordOf, SessionModel } from '../../../models';
import { fromRow } from '../../core/graphql-sql/sql-fields';
import { SessionResponse } from './sessions.types';

/**
 * Row → GraphQL type: the columns its fields declare (@Sql), and the sharer's
 * key its shared_by resolver reads. An instance of the class, not a plain
 * object: type-graphql copies a field resolver's parent into its class on
 * every call unless it already is one.
 */
export function toSession(row: RecordOf<SessionModel>): SessionResponse {
  return Object.assign(fromRow(SessionResponse, row), { shared_by_id: row.shared_by });
}
