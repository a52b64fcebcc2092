/**
 * SQL fragments for replies PostgreSQL serialises (field declarations read by
 * the engine), matching what GraphQL
 * serialisation of the same values produces.
 */

/** A timestamptz as DateTimeISO serialises a JS Date: UTC, milliseconds (truncated, as node-postgres parses). */
export function jsonTimestamp(expr: string): string {
  return `to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** A jsonb member, or `fallback` (a JSON literal) when it is missing or null (`value ?? fallback`). */
export function jsonOr(expr: string, fallback: string): string {
  return `coalesce(nullif(${expr}, 'null'::jsonb), '${fallback}'::jsonb)`;
}
