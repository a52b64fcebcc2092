import { jsonOr } from '../../db/json-sql';

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
 * Every read of a task reads it from `tasksReadBy(reader)`, whose rows carry
 * the reader, and TaskSummary.verification is declared as `verificationSql`,
 * the one place the rule is written (REST and GraphQL, compiled or resolved,
 * task-set members, evaluation items, organization navigation).
 */

/** The fields of a verification that are secrets. */
export const VERIFICATION_SECRETS = ['value', 'script'] as const;

/**
 * The tasks table as read for `reader` (an SQL expression of the reader's
 * organization id; NULL reads no secrets), used as alias `a` of a task read:
 * each row carries `reader_org_id`.
 */
export function tasksReadBy(reader: string): string {
  return `(SELECT t.*, ${reader}::uuid AS reader_org_id FROM tasks t)`;
}

/** The tasks as the route's organization (`$org_id`) reads them. */
export const TASKS_READ_BY_ROUTE = tasksReadBy('$org_id');

/** TaskSummary.verification over a row `a` of tasksReadBy: the stored jsonb with its defaults, secrets for the task's own organization only. */
export function verificationSql(a: string): string {
  const v = `${a}.verification`;
  const judge = `${v}->'judge'`;
  const secret = (key: (typeof VERIFICATION_SECRETS)[number]) => `CASE WHEN ${a}.reader_org_id = ${a}.organization_id THEN ${v}->'${key}' END`;
  return `CASE WHEN jsonb_typeof(${v}) = 'object' THEN json_build_object(
      'method', ${v}->'method', 'hash', ${v}->'hash', 'path', ${v}->'path', 'script', ${secret('script')}, 'value', ${secret('value')},
      'timeout', ${jsonOr(`${v}->'timeout'`, '30')}, 'where', ${jsonOr(`${v}->'where'`, '"environment"')},
      'judge', CASE WHEN jsonb_typeof(${judge}) = 'object' THEN json_build_object(
        'kind', ${jsonOr(`${judge}->'kind'`, '"trajectory"')}, 'max_steps', ${jsonOr(`${judge}->'max_steps'`, '50')},
        'model', ${judge}->'model', 'model_params', ${jsonOr(`${judge}->'model_params'`, '{}')},
        'rubric', ${judge}->'rubric', 'system_prompt', ${judge}->'system_prompt',
        'task_context', ${jsonOr(`${judge}->'task_context'`, '{}')}) END) END`;
}
