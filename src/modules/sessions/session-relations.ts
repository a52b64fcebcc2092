import { SessionModel, type RecordOf } from '../../../models';

/**
 * Session reads in node select the row as one JSON column (`to_json(s) AS
 * "s"`): node-postgres parses it with one native JSON.parse instead of a type
 * parser per column, and a prepared statement keeps its result type when the
 * table gains a column. Its timestamps come back as strings and are turned
 * into Dates here.
 */
let dateColumns: string[] | undefined;
export function sessionOfRow(row: Record<string, unknown>): RecordOf<SessionModel> {
  dateColumns ??= Object.entries(SessionModel.getAttributes())
    .filter(([, attribute]) => (attribute.type as { key?: string }).key === 'DATE')
    .map(([name, attribute]) => attribute.field ?? name);
  const session = row.s as Record<string, unknown>;
  for (const column of dateColumns) if (typeof session[column] === 'string') session[column] = new Date(session[column] as string);
  return session as unknown as RecordOf<SessionModel>;
}
