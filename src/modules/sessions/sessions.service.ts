import type { Transaction } from 'sequelize';
import { SessionGroupModel, SessionModel, type RecordOf } from '../../../models';
import type { SessionLabels } from '../../../models/session.model';
import type { AppContext } from '../../core/context';
import { ConflictError, ForbiddenError, NotFoundError } from '../../core/errors';
import { requireScope, resolveWorkspace, type WorkspaceScope } from '../../core/tenancy/tenant-scope';
import { database } from '../../db/database';
import { plainQuery } from '../../db/hot';
import { resolveProject } from '../projects/projects.service';
import { addToGroupRollup, recountGroups } from '../session-groups/group-rollups';
import { checkSessionIndexEntry, normaliseLabels } from './labels';
import { isVisible, requireOwnerWrite, SESSION_WRITE_SCOPE, setVisibility } from './session.policy';
import { findSession, readSession, resolveSessionWorkspace } from './session-ref';
import type { SessionCreateRequest, SessionUpdateRequest } from './sessions.inputs';

/**
 * Session writes and reads by reference: save (upsert), get, update,
 * archive, freeze, delete. Lists and facets live in session-list.service.ts
 * and session-facets.service.ts, transcripts in transcript.service.ts.
 */

/** Loaders that cache derived values of a session; cleared after writes. */
export function forgetSession(ctx: AppContext, session: RecordOf<SessionModel>, previousGroupId?: string | null): void {
  ctx.loaders.sessionStats.clear(session.id);
  for (const groupId of [session.group_id, previousGroupId]) if (groupId) ctx.loaders.sessionGroupById.clear(groupId);
}

/** What of a session its group's counts depend on, before or after a write. */
interface CountedState {
  group_id: string | null;
  message_count: number;
  archived: boolean;
  activity: Date;
}

function countedState(session: RecordOf<SessionModel>): CountedState {
  return {
    group_id: session.group_id,
    message_count: session.message_count,
    archived: session.archived_at != null,
    activity: session.last_message_at ?? session.created_at,
  };
}

/**
 * Keeps the group counts (decisions §6) in step with a session write, in its
 * transaction: a delta when the session stays in its group or joins one as a
 * new session, a recount of both groups when it moves or is deleted.
 */
async function syncGroupCounts(before: CountedState | null, after: CountedState | null, transaction: Transaction): Promise<void> {
  const from = before?.group_id ?? null;
  const to = after?.group_id ?? null;
  if (!from && !to) return;
  const active = (state: CountedState | null) => (state && !state.archived ? 1 : 0);
  if (from === to && before && after) {
    await addToGroupRollup(to!, { active: active(after) - active(before), messages: after.message_count - before.message_count, activityAt: after.activity }, transaction);
  } else if (!before && after) {
    await addToGroupRollup(to!, { sessions: 1, active: active(after), messages: after.message_count, activityAt: after.activity }, transaction);
  } else {
    await recountGroups([from, to], transaction);
  }
}

async function requireGroup(scope: WorkspaceScope, groupId: string, transaction?: Transaction): Promise<SessionGroupModel> {
  const group = await SessionGroupModel.findOne({ where: { id: groupId, workspace_id: scope.workspace.id }, transaction });
  if (!group) throw new NotFoundError('Session group');
  return group;
}

/** Where a too-large agent + model + labels is reported: the labels when given, else the field that grew. */
function sizeLoc(input: { labels?: unknown; agent?: string | null }): (string | number)[] {
  if (input.labels != null) return ['input', 'labels'];
  return ['input', input.agent != null ? 'agent' : 'model'];
}

/** Inserts a new session unless its id is taken (then null): one INSERT … ON CONFLICT DO NOTHING. */
async function insertSession(
  scope: WorkspaceScope,
  input: SessionCreateRequest,
  labels: SessionLabels,
  transaction: Transaction,
): Promise<RecordOf<SessionModel> | null> {
  const shared = input.visibility === 'workspace';
  const rows = await plainQuery<RecordOf<SessionModel>>(
    `INSERT INTO sessions (id, organization_id, workspace_id, user_id, project_id, group_id, agent, model, title, origin,
                           visibility, runtime_id, labels, message_count, shared_at, shared_by)
     VALUES ($id, $organization_id, $workspace_id, $user_id, $project_id, $group_id, $agent, $model, $title, $origin,
             $visibility, $runtime_id, $labels::jsonb, $message_count, CASE WHEN $shared THEN now() END, $shared_by)
     ON CONFLICT (id) DO NOTHING
     RETURNING *`,
    {
      id: input.id,
      organization_id: scope.org.id,
      workspace_id: scope.workspace.id,
      user_id: scope.viewer.user.id,
      project_id: input.project_id ?? null,
      group_id: input.group_id ?? null,
      agent: input.agent ?? null,
      model: input.model,
      title: input.title ?? null,
      origin: input.origin ?? 'user',
      visibility: input.visibility ?? 'private',
      runtime_id: input.runtime_id ?? null,
      labels: JSON.stringify(labels),
      message_count: input.message_count ?? 0,
      shared,
      shared_by: shared ? scope.viewer.user.id : null,
    },
    { transaction },
  );
  return rows[0] ?? null;
}

export async function saveSession(
  ctx: AppContext,
  org: string,
  ws: string,
  input: SessionCreateRequest,
): Promise<{ session: RecordOf<SessionModel>; created: boolean }> {
  const labels = input.labels == null ? input.labels : normaliseLabels(input.labels, ['input', 'labels']);
  const scope = await resolveWorkspace(ctx, org, ws);
  const me = scope.viewer.user;
  if (input.project_id) await resolveProject(scope, input.project_id);
  if (input.group_id) await requireGroup(scope, input.group_id);
  const result = await database().transaction(async (transaction) => {
    let existing = await SessionModel.findByPk(input.id, { transaction, lock: transaction.LOCK.UPDATE });
    if (!existing) {
      requireScope(scope, SESSION_WRITE_SCOPE);
      checkSessionIndexEntry({ agent: input.agent ?? null, model: input.model, labels: labels ?? {} }, sizeLoc(input));
      // FOR UPDATE locks nothing while the id is free: a concurrent first save
      // of the same id may insert it meanwhile. ON CONFLICT DO NOTHING waits for
      // that save to finish; then the row is locked and treated as an update.
      const created = await insertSession(scope, input, labels ?? {}, transaction);
      if (created) {
        await syncGroupCounts(null, countedState(created), transaction);
        return { session: created, created: true, previousGroupId: null };
      }
      existing = await SessionModel.findByPk(input.id, { transaction, lock: transaction.LOCK.UPDATE });
      if (!existing) throw new ConflictError('The session was deleted while it was being saved; save it again');
    }
    const here = existing.workspace_id === scope.workspace.id;
    if (here && !isVisible(existing, me)) throw new NotFoundError('Session');
    requireScope(scope, SESSION_WRITE_SCOPE);
    if (here && existing.user_id !== me.id) throw new ForbiddenError('Only the owner of the session can save it');
    // The id is the client's own random UUID: saying it is taken discloses nothing.
    if (!here) throw new ConflictError('A session with this id exists in another workspace');
    const now = new Date();
    const session = existing;
    const before = countedState(session);
    if (input.visibility) setVisibility(session, input.visibility, me.id, now);
    session.model = input.model;
    if (input.agent !== undefined) session.agent = input.agent;
    if (input.title !== undefined) session.title = input.title;
    if (labels !== undefined) session.labels = labels ?? {};
    if (input.message_count != null) session.message_count = input.message_count;
    if (input.origin) session.origin = input.origin;
    if (input.project_id !== undefined) session.project_id = input.project_id;
    if (input.group_id !== undefined && input.group_id !== session.group_id) {
      await requireNotOfEvaluationItem(session, 'moved out of its group', transaction);
      session.group_id = input.group_id;
    }
    if (input.runtime_id !== undefined) session.runtime_id = input.runtime_id;
    checkSessionIndexEntry(session, sizeLoc(input));
    session.changed('updated_at', true);
    await session.save({ transaction });
    await syncGroupCounts(before, countedState(session), transaction);
    return { session, created: false, previousGroupId: before.group_id };
  });
  forgetSession(ctx, result.session, result.previousGroupId);
  return { session: result.session, created: result.created };
}

/** One session by reference: the tenant, then one statement. */
export async function getSession(ctx: AppContext, org: string, ws: string, ref: string): Promise<RecordOf<SessionModel>> {
  const scope = await resolveSessionWorkspace(ctx, org, ws, ref);
  return readSession(scope, ref);
}

export async function updateSession(
  ctx: AppContext,
  org: string,
  ws: string,
  ref: string,
  input: SessionUpdateRequest,
): Promise<SessionModel> {
  const labels = input.labels == null ? input.labels : normaliseLabels(input.labels, ['input', 'labels']);
  const scope = await resolveSessionWorkspace(ctx, org, ws, ref);
  const session = await database().transaction(async (transaction) => {
    const row = await findSession(scope, ref, transaction);
    requireOwnerWrite(scope, row);
    const before = countedState(row);
    if (input.visibility) setVisibility(row, input.visibility, scope.viewer.user.id, new Date());
    if (input.model != null) row.model = input.model;
    if (input.agent !== undefined) row.agent = input.agent;
    if (input.title !== undefined) row.title = input.title;
    if (input.message_count != null) row.message_count = input.message_count;
    if (labels !== undefined) row.labels = labels ?? {};
    checkSessionIndexEntry(row, sizeLoc(input));
    row.changed('updated_at', true);
    await row.save({ transaction });
    await syncGroupCounts(before, countedState(row), transaction);
    return row;
  });
  forgetSession(ctx, session);
  return session;
}

/** Archive and unarchive: any writer who can see the session; idempotent. */
export async function setArchived(ctx: AppContext, org: string, ws: string, ref: string, archived: boolean): Promise<SessionModel> {
  const scope = await resolveSessionWorkspace(ctx, org, ws, ref);
  const session = await database().transaction(async (transaction) => {
    const row = await findSession(scope, ref, transaction);
    requireScope(scope, SESSION_WRITE_SCOPE);
    if (archived === (row.archived_at != null)) return row;
    const before = countedState(row);
    row.archived_at = archived ? new Date() : null;
    await row.save({ transaction });
    await syncGroupCounts(before, countedState(row), transaction);
    return row;
  });
  forgetSession(ctx, session);
  return session;
}

/** Freezing stops transcript writes; freezing again changes nothing. */
export async function freezeSession(ctx: AppContext, org: string, ws: string, ref: string): Promise<SessionModel> {
  const scope = await resolveSessionWorkspace(ctx, org, ws, ref);
  return database().transaction(async (transaction) => {
    const row = await findSession(scope, ref, transaction);
    requireOwnerWrite(scope, row);
    if (row.frozen_at) return row;
    row.frozen_at = new Date();
    row.frozen_by = 'user';
    await row.save({ transaction });
    return row;
  });
}

/**
 * A session of an evaluation item's group is the item's record (decisions §5): it is neither deleted nor moved out
 * of the group (moving it out first would get round the delete's 409).
 */
async function requireNotOfEvaluationItem(session: SessionModel, what: string, transaction: Transaction): Promise<void> {
  if (!session.group_id) return;
  const group = await SessionGroupModel.findByPk(session.group_id, { transaction });
  if (group?.kind === 'evaluation_item') throw new ConflictError(`The session belongs to an evaluation item and cannot be ${what}`);
}

export async function deleteSession(ctx: AppContext, org: string, ws: string, ref: string): Promise<string> {
  const scope = await resolveSessionWorkspace(ctx, org, ws, ref);
  const session = await database().transaction(async (transaction) => {
    const row = await findSession(scope, ref, transaction);
    requireOwnerWrite(scope, row);
    await requireNotOfEvaluationItem(row, 'deleted', transaction);
    await row.destroy({ transaction });
    await syncGroupCounts(countedState(row), null, transaction);
    return row;
  });
  forgetSession(ctx, session);
  return session.id;
}
