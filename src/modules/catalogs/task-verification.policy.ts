/**
 * Who reads a task's verification secrets. `value` (the flag in clear) and
 * `script` (the checker) let whoever reads them pass the task, and an agent
 * under evaluation may hold a key of another organization: only the task's
 * own organization reads them. Every other reader of a (public) task gets
 * them as null; `hash`, `path`, `method`, `timeout`, `where` and `judge` stay.
 *
 * The reader is the organization a reply is built for: the route's `{org}`,
 * or the organization of whatever embeds the task (the task set read, the
 * evaluation whose item runs it, the organization navigated from). Not "any
 * organization the user belongs to": a reply depends on the route, never on
 * the account's other memberships.
 *
 * Every path that builds a task reply calls `showsVerificationSecrets`:
 * `toTask` (REST reads, GraphQL, task-set members, evaluation items) through
 * `toVerification`, and `taskJson` (the task list PostgreSQL serialises)
 * through `verificationSecretsSql`, which evaluates the same comparison in
 * the statement.
 */

/** The fields of a verification that are secrets. */
export const VERIFICATION_SECRETS = ['value', 'script'] as const;

/** True when a reply built for `readerOrgId` may carry the secrets of a task owned by `taskOrgId` (null reader: never). */
export function showsVerificationSecrets(taskOrgId: string, readerOrgId: string | null): boolean {
  return readerOrgId !== null && taskOrgId === readerOrgId;
}

/**
 * The same rule as an SQL boolean, for replies PostgreSQL builds:
 * `taskOrgColumn` is the task's organization column, `readerOrgParam` the
 * bind parameter holding the reader's organization id.
 */
export function verificationSecretsSql(taskOrgColumn: string, readerOrgParam: string): string {
  return `(${readerOrgParam}::uuid IS NOT NULL AND ${taskOrgColumn} = ${readerOrgParam}::uuid)`;
}
