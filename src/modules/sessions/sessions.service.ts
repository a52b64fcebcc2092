import crypto from 'node:crypto';
import { Op, QueryTypes, type Transaction } from 'sequelize';
import { ProjectModel, SessionGroupModel, SessionMessageModel, SessionModel, type UserModel } from '../../../models';
import type { SessionLabels } from '../../../models/session.model';
import type { AppContext } from '../../context/context';
import { requireScope, workspaceAccess, type WorkspaceAccess } from '../../core/authz/access';
import { ConflictError, ForbiddenError, NotFoundError, validationFailure } from '../../core/errors';
import { isUuid } from '../../core/scalars';
import { database } from '../../db/database';
import { checkIndexEntry, normaliseLabels, parseLabelFilters } from './labels';
import type {
  SessionCreateRequest,
  SessionFilterArgs,
  SessionListArgs,
  SessionUpdateRequest,
  TranscriptAppendRequest,
  TranscriptCompactRequest,
  TranscriptMessageInput,
  TranscriptReadArgs,
} from './sessions.inputs';
import { sessionWhere } from './sessions.query';
import { SessionSortBy, SortDirection, type LabelFacetEntry, type SessionFacetsResponse, type UserFacetEntry } from './sessions.types';

const WRITE_SCOPE = 'resources:write' as const;
const PREVIEW_LENGTH = 200;

/** Loaders that cache derived values of a session; cleared after writes. */
function forget(ctx: AppContext, session: SessionModel): void {
  ctx.loaders.sessionStats.clear(session.id);
  if (session.group_id) ctx.loaders.sessionGroupStats.clear(session.group_id);
}

function isVisible(session: SessionModel, viewer: UserModel): boolean {
  return session.user_id === viewer.id || session.visibility === 'workspace';
}

// ---------------------------------------------------------------------------
// Session references: a full UUID (any case) or a prefix of 4+ characters.

const UUID_TEMPLATE = 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx';

/** 422 before any lookup: a reference shorter than 4 characters. */
export function checkSessionRef(ref: string): void {
  if (ref.length < 4) throw validationFailure(['session_id'], 'String should have at least 4 characters', 'string_too_short');
}

/**
 * The id range a reference covers: a full UUID is itself; a prefix of the
 * lower-case form covers prefix+000… to prefix+fff…, which the primary key
 * index answers directly. Null when it cannot be a prefix of any id.
 */
export function refRange(ref: string): [string, string] | null {
  const full: boolean = isUuid(ref);
  if (full) return [ref.toLowerCase(), ref.toLowerCase()];
  if (ref.length > UUID_TEMPLATE.length) return null;
  for (let index = 0; index < ref.length; index += 1) {
    const char = ref[index];
    if (UUID_TEMPLATE[index] === '-' ? char !== '-' : !/[0-9a-f]/.test(char)) return null;
  }
  const rest = UUID_TEMPLATE.slice(ref.length);
  return [ref + rest.replace(/x/g, '0'), ref + rest.replace(/x/g, 'f')];
}

/** The one session a reference names among the caller's visible sessions of the workspace. */
async function findSession(access: WorkspaceAccess, ref: string, transaction?: Transaction): Promise<SessionModel> {
  const range = refRange(ref);
  if (!range) throw new NotFoundError('Session');
  const rows = await SessionModel.findAll({
    where: {
      workspace_id: access.workspace.id,
      id: range[0] === range[1] ? range[0] : { [Op.between]: range },
      [Op.or]: [{ user_id: access.viewer.user.id }, { visibility: 'workspace' }],
    },
    limit: 2,
    transaction,
    lock: transaction ? transaction.LOCK.UPDATE : undefined,
  });
  if (rows.length === 0) throw new NotFoundError('Session');
  if (rows.length > 1) throw new ConflictError(`Session id prefix '${ref}' matches more than one session; use more characters`);
  return rows[0];
}

async function sessionAccess(ctx: AppContext, org: string, ws: string, ref: string) {
  checkSessionRef(ref);
  return workspaceAccess(ctx, org, ws);
}

/** Writes other than archive/unarchive are the owner's (readers write nothing). */
function requireOwnerWrite(access: WorkspaceAccess, session: SessionModel): void {
  requireScope(access, WRITE_SCOPE);
  if (session.user_id !== access.viewer.user.id) throw new ForbiddenError('Only the owner of the session can change it');
}

async function requireProject(access: WorkspaceAccess, projectId: string, transaction?: Transaction): Promise<ProjectModel> {
  const project = await ProjectModel.findOne({ where: { id: projectId, workspace_id: access.workspace.id }, transaction });
  if (!project) throw new NotFoundError('Project');
  return project;
}

async function requireGroup(access: WorkspaceAccess, groupId: string, transaction?: Transaction): Promise<SessionGroupModel> {
  const group = await SessionGroupModel.findOne({ where: { id: groupId, workspace_id: access.workspace.id }, transaction });
  if (!group) throw new NotFoundError('Session group');
  return group;
}

// ---------------------------------------------------------------------------
// Save (upsert), read, update, archive, freeze, delete.

/** Where a too-large agent + model + labels is reported: the labels when given, else the field that grew. */
function sizeLoc(input: { labels?: unknown; agent?: string | null }): (string | number)[] {
  if (input.labels != null) return ['input', 'labels'];
  return ['input', input.agent != null ? 'agent' : 'model'];
}

/** Inserts a new session unless its id is taken (then null): one INSERT … ON CONFLICT DO NOTHING. */
async function insertSession(
  access: WorkspaceAccess,
  input: SessionCreateRequest,
  labels: SessionLabels,
  transaction: Transaction,
): Promise<SessionModel | null> {
  const shared = input.visibility === 'workspace';
  const rows = await database().query<SessionModel>(
    `INSERT INTO sessions (id, organization_id, workspace_id, user_id, project_id, group_id, agent, model, title, origin,
                           visibility, runtime_id, labels, message_count, shared_at, shared_by)
     VALUES ($id, $organization_id, $workspace_id, $user_id, $project_id, $group_id, $agent, $model, $title, $origin,
             $visibility, $runtime_id, $labels::jsonb, $message_count, CASE WHEN $shared THEN now() END, $shared_by)
     ON CONFLICT (id) DO NOTHING
     RETURNING *`,
    {
      bind: {
        id: input.id,
        organization_id: access.org.id,
        workspace_id: access.workspace.id,
        user_id: access.viewer.user.id,
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
        shared_by: shared ? access.viewer.user.id : null,
      },
      type: QueryTypes.SELECT,
      model: SessionModel,
      mapToModel: true,
      transaction,
    },
  );
  return rows[0] ?? null;
}

export async function saveSession(
  ctx: AppContext,
  org: string,
  ws: string,
  input: SessionCreateRequest,
): Promise<{ session: SessionModel; created: boolean }> {
  const labels = input.labels == null ? input.labels : normaliseLabels(input.labels, ['input', 'labels']);
  const access = await workspaceAccess(ctx, org, ws);
  const me = access.viewer.user;
  if (input.project_id) await requireProject(access, input.project_id);
  if (input.group_id) await requireGroup(access, input.group_id);
  const result = await database().transaction(async (transaction) => {
    let existing = await SessionModel.findByPk(input.id, { transaction, lock: transaction.LOCK.UPDATE });
    if (!existing) {
      requireScope(access, WRITE_SCOPE);
      checkIndexEntry({ agent: input.agent ?? null, model: input.model, labels: labels ?? {} }, sizeLoc(input));
      // FOR UPDATE locks nothing while the id is free: a concurrent first save
      // of the same id may insert it meanwhile. ON CONFLICT DO NOTHING waits for
      // that save to finish; then the row is locked and treated as an update.
      const created = await insertSession(access, input, labels ?? {}, transaction);
      if (created) return { session: created, created: true };
      existing = await SessionModel.findByPk(input.id, { transaction, lock: transaction.LOCK.UPDATE });
      if (!existing) throw new ConflictError('The session was deleted while it was being saved; save it again');
    }
    const here = existing.workspace_id === access.workspace.id;
    if (here && !isVisible(existing, me)) throw new NotFoundError('Session');
    requireScope(access, WRITE_SCOPE);
    if (here && existing.user_id !== me.id) throw new ForbiddenError('Only the owner of the session can save it');
    // The id is the client's own random UUID: saying it is taken discloses nothing.
    if (!here) throw new ConflictError('A session with this id exists in another workspace');
    const now = new Date();
    const session = existing;
    if (input.visibility) setVisibility(session, input.visibility, me.id, now);
    session.model = input.model;
    if (input.agent !== undefined) session.agent = input.agent;
    if (input.title !== undefined) session.title = input.title;
    if (labels !== undefined) session.labels = labels ?? {};
    if (input.message_count != null) session.message_count = input.message_count;
    if (input.origin) session.origin = input.origin;
    if (input.project_id !== undefined) session.project_id = input.project_id;
    if (input.group_id !== undefined) session.group_id = input.group_id;
    if (input.runtime_id !== undefined) session.runtime_id = input.runtime_id;
    checkIndexEntry(session, sizeLoc(input));
    session.changed('updated_at', true);
    await session.save({ transaction });
    return { session, created: false };
  });
  forget(ctx, result.session);
  return result;
}

/** Visibility only goes private → workspace; sharing records when and by whom. */
function setVisibility(session: SessionModel, visibility: 'private' | 'workspace', userId: string, now: Date): void {
  if (visibility === session.visibility) return;
  if (visibility === 'private') throw new ForbiddenError('A shared session cannot be made private again');
  session.visibility = 'workspace';
  session.shared_at = now;
  session.shared_by = userId;
}

export async function getSession(ctx: AppContext, org: string, ws: string, ref: string): Promise<SessionModel> {
  const access = await sessionAccess(ctx, org, ws, ref);
  return findSession(access, ref);
}

export async function updateSession(
  ctx: AppContext,
  org: string,
  ws: string,
  ref: string,
  input: SessionUpdateRequest,
): Promise<SessionModel> {
  const labels = input.labels == null ? input.labels : normaliseLabels(input.labels, ['input', 'labels']);
  const access = await sessionAccess(ctx, org, ws, ref);
  const session = await database().transaction(async (transaction) => {
    const row = await findSession(access, ref, transaction);
    requireOwnerWrite(access, row);
    if (input.visibility) setVisibility(row, input.visibility, access.viewer.user.id, new Date());
    if (input.model != null) row.model = input.model;
    if (input.agent !== undefined) row.agent = input.agent;
    if (input.title !== undefined) row.title = input.title;
    if (input.message_count != null) row.message_count = input.message_count;
    if (labels !== undefined) row.labels = labels ?? {};
    checkIndexEntry(row, sizeLoc(input));
    row.changed('updated_at', true);
    await row.save({ transaction });
    return row;
  });
  forget(ctx, session);
  return session;
}

/** Archive and unarchive: any writer who can see the session; idempotent. */
export async function setArchived(ctx: AppContext, org: string, ws: string, ref: string, archived: boolean): Promise<SessionModel> {
  const access = await sessionAccess(ctx, org, ws, ref);
  const session = await database().transaction(async (transaction) => {
    const row = await findSession(access, ref, transaction);
    requireScope(access, WRITE_SCOPE);
    if (archived === (row.archived_at != null)) return row;
    row.archived_at = archived ? new Date() : null;
    await row.save({ transaction });
    return row;
  });
  forget(ctx, session);
  return session;
}

/** Freezing stops transcript writes; freezing again changes nothing. */
export async function freezeSession(ctx: AppContext, org: string, ws: string, ref: string): Promise<SessionModel> {
  const access = await sessionAccess(ctx, org, ws, ref);
  return database().transaction(async (transaction) => {
    const row = await findSession(access, ref, transaction);
    requireOwnerWrite(access, row);
    if (row.frozen_at) return row;
    row.frozen_at = new Date();
    row.frozen_by = 'user';
    await row.save({ transaction });
    return row;
  });
}

export async function deleteSession(ctx: AppContext, org: string, ws: string, ref: string): Promise<string> {
  const access = await sessionAccess(ctx, org, ws, ref);
  const session = await database().transaction(async (transaction) => {
    const row = await findSession(access, ref, transaction);
    requireOwnerWrite(access, row);
    if (row.group_id) {
      const group = await SessionGroupModel.findByPk(row.group_id, { transaction });
      if (group?.kind === 'evaluation_item') throw new ConflictError('The session belongs to an evaluation item and cannot be deleted');
    }
    await row.destroy({ transaction });
    return row;
  });
  forget(ctx, session);
  return session.id;
}

// ---------------------------------------------------------------------------
// Transcript.

/** Readable text of a message's content (string, content blocks or JSON). */
export function contentText(content: unknown): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(contentText).filter(Boolean).join(' ');
  if (typeof content === 'object') {
    const text = (content as { text?: unknown }).text;
    if (typeof text === 'string') return text;
    return JSON.stringify(content);
  }
  return String(content);
}

function preview(messages: TranscriptMessageInput[]): string | null {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const text = contentText(messages[index].content).replace(/\s+/g, ' ').trim();
    if (text) return [...text].slice(0, PREVIEW_LENGTH).join('');
  }
  return null;
}

/** The session row, locked for the transaction, that the caller may write a transcript to. */
async function requireWritableTranscript(access: WorkspaceAccess, ref: string, transaction: Transaction): Promise<SessionModel> {
  const session = await findSession(access, ref, transaction);
  requireOwnerWrite(access, session);
  if (session.frozen_at) throw new ConflictError('The session is frozen and accepts no transcript writes');
  return session;
}

/**
 * Appends messages under the session's row lock (seq stays gap-free and
 * ordered) and maintains message_count, last_message_at, preview_text (and
 * the context when given) in one UPDATE … RETURNING, which also gives the
 * reply its session. recent_message_count is derived at read time.
 */
async function insertMessages(
  session: SessionModel,
  messages: TranscriptMessageInput[],
  options: { summary: boolean; context?: Record<string, unknown> | null },
  transaction: Transaction,
): Promise<{ session: SessionModel; messages: SessionMessageModel[] }> {
  const rows = messages.map((message, index) => {
    const usage = message.usage ?? null;
    return {
      session_id: session.id,
      seq: session.last_seq + index + 1,
      organization_id: session.organization_id,
      id: message.id ?? crypto.randomUUID(),
      role: message.role,
      content: message.content ?? null,
      tool_calls: message.tool_calls?.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments ?? null })) ?? null,
      tool_call_id: message.tool_call_id ?? null,
      metadata: message.metadata ?? null,
      has_usage: usage != null,
      input_tokens: usage ? (usage.input_tokens ?? 0) : null,
      output_tokens: usage ? (usage.output_tokens ?? 0) : null,
      cache_creation_input_tokens: usage ? (usage.cache_creation_input_tokens ?? 0) : null,
      cache_read_input_tokens: usage ? (usage.cache_read_input_tokens ?? 0) : null,
      cost_usd: usage?.cost_usd ?? null,
      tool_call_count: message.tool_calls?.length ?? 0,
      is_summary: options.summary,
    };
  });
  const created = await SessionMessageModel.bulkCreate(rows, { transaction, returning: true });
  const withContext = options.context !== undefined;
  const [updated] = await database().query<SessionModel>(
    `UPDATE sessions SET
       last_seq = last_seq + $count,
       message_count = message_count + $count,
       last_message_at = now(),
       preview_text = coalesce($preview, preview_text),
       context = CASE WHEN $with_context THEN $context::jsonb ELSE context END,
       updated_at = now()
     WHERE id = $id
     RETURNING *`,
    {
      bind: {
        id: session.id,
        count: rows.length,
        preview: preview(messages),
        with_context: withContext,
        context: withContext && options.context !== null ? JSON.stringify(options.context) : null,
      },
      type: QueryTypes.SELECT,
      model: SessionModel,
      mapToModel: true,
      transaction,
    },
  );
  return { session: updated, messages: created.sort((a, b) => a.seq - b.seq) };
}

export async function appendTranscript(
  ctx: AppContext,
  org: string,
  ws: string,
  ref: string,
  input: TranscriptAppendRequest,
): Promise<{ session: SessionModel; messages: SessionMessageModel[] }> {
  const access = await sessionAccess(ctx, org, ws, ref);
  const result = await database().transaction(async (transaction) => {
    const session = await requireWritableTranscript(access, ref, transaction);
    return insertMessages(session, input.messages, { summary: false, context: input.context }, transaction);
  });
  forget(ctx, result.session);
  return result;
}

export async function compactTranscript(
  ctx: AppContext,
  org: string,
  ws: string,
  ref: string,
  input: TranscriptCompactRequest,
): Promise<{ session: SessionModel; messages: SessionMessageModel[]; compacted_count: number }> {
  const access = await sessionAccess(ctx, org, ws, ref);
  const result = await database().transaction(async (transaction) => {
    const session = await requireWritableTranscript(access, ref, transaction);
    if (input.up_to_seq > session.last_seq) {
      throw validationFailure(
        ['input', 'up_to_seq'],
        `Input should be less than or equal to ${session.last_seq} (the last seq of the transcript)`,
        'less_than_equal',
      );
    }
    const [compacted] = await SessionMessageModel.update(
      { compacted_at: new Date() },
      { where: { session_id: session.id, seq: { [Op.lte]: input.up_to_seq }, compacted_at: null }, transaction },
    );
    const appended = await insertMessages(session, [input.summary], { summary: true }, transaction);
    return { ...appended, compacted_count: compacted };
  });
  forget(ctx, result.session);
  return result;
}

export async function readTranscript(
  ctx: AppContext,
  org: string,
  ws: string,
  ref: string,
  args: TranscriptReadArgs,
): Promise<{ session: SessionModel; messages: SessionMessageModel[]; has_more: boolean }> {
  const access = await sessionAccess(ctx, org, ws, ref);
  const session = await findSession(access, ref);
  const limit = args.limit ?? 100;
  const rows = await SessionMessageModel.findAll({
    where: {
      session_id: session.id,
      seq: { [Op.gt]: args.after_seq ?? 0 },
      ...(args.include_compacted ? {} : { compacted_at: null }),
    },
    order: [['seq', 'ASC']],
    limit: limit + 1,
  });
  return { session, messages: rows.slice(0, limit), has_more: rows.length > limit };
}

// ---------------------------------------------------------------------------
// List and facets: counted in SQL.

const SORT_COLUMNS: Record<SessionSortBy, string> = {
  [SessionSortBy.updated_at]: 's.updated_at',
  [SessionSortBy.last_message_at]: 's.last_message_at',
  [SessionSortBy.created_at]: 's.created_at',
  [SessionSortBy.message_count]: 's.message_count',
};

export interface SessionPage {
  sessions: SessionModel[];
  total: number;
  page: number;
  limit: number;
}

/** The page statement of the list (exported so the benchmark times the same SQL). */
export function sessionPageSql(whereSql: string, sortBy: SessionSortBy, sortDir: SortDirection): string {
  const direction = sortDir === SortDirection.asc ? 'ASC' : 'DESC';
  // Only last_message_at can be null; leaving NULLS LAST off the others lets
  // the default order (updated_at desc, id desc) walk the partial index.
  const nulls = sortBy === SessionSortBy.last_message_at ? ' NULLS LAST' : '';
  return `SELECT s.* FROM sessions s WHERE ${whereSql}
           ORDER BY ${SORT_COLUMNS[sortBy]} ${direction}${nulls}, s.id ${direction}
           LIMIT $limit OFFSET $offset`;
}

export function sessionCountSql(whereSql: string): string {
  return `SELECT count(*) AS total FROM sessions s WHERE ${whereSql}`;
}

export async function listSessions(ctx: AppContext, org: string, ws: string, args: SessionListArgs): Promise<SessionPage> {
  const labels = parseLabelFilters(args.label ?? [], ['label']); // 422 before the tenant lookup
  const access = await workspaceAccess(ctx, org, ws);
  const where = sessionWhere(access.workspace.id, access.viewer.user.id, args, labels);
  const page = args.page ?? 1;
  const limit = args.limit ?? 20;
  const pageSql = sessionPageSql(where.sql, args.sort_by ?? SessionSortBy.updated_at, args.sort_dir ?? SortDirection.desc);
  const [counted, sessions] = await Promise.all([
    database().query<{ total: string }>(sessionCountSql(where.sql), { bind: where.bind, type: QueryTypes.SELECT }),
    database().query<SessionModel>(pageSql, {
      bind: { ...where.bind, limit, offset: (page - 1) * limit },
      type: QueryTypes.SELECT,
      model: SessionModel,
      mapToModel: true,
    }),
  ]);
  return { sessions, total: Number(counted[0]?.total ?? 0), page, limit };
}

export interface FacetRow {
  dim: 'agent' | 'model' | 'origin' | 'user' | 'group_kind' | 'group_status' | 'label';
  label_key: string | null;
  value: string | null;
  n: string;
  email: string | null;
  username: string | null;
  full_name: string | null;
}

/**
 * Every facet in one statement: one pass of GROUPING SETS over the filtered
 * sessions (joined to their groups) for the scalar dimensions, plus the
 * label pairs expanded from the jsonb column. Null values are left out.
 * `base` is MATERIALIZED: one index-only scan of the partial index feeds both
 * halves. Inlining it (two scans) measured 80 ms instead of 94 ms alone over
 * 28k sessions, but only through a parallel plan that got slower than this
 * one as soon as two requests ran at once (bench/README.md).
 */
export function facetSql(whereSql: string): string {
  return `
    WITH base AS MATERIALIZED (
      SELECT s.agent, s.model, s.origin, s.user_id, s.labels, s.group_id FROM sessions s WHERE ${whereSql}
    ),
    counted AS (
      SELECT CASE WHEN GROUPING(b.agent) = 0 THEN 'agent'
                  WHEN GROUPING(b.model) = 0 THEN 'model'
                  WHEN GROUPING(b.origin) = 0 THEN 'origin'
                  WHEN GROUPING(b.user_id) = 0 THEN 'user'
                  WHEN GROUPING(g.kind) = 0 THEN 'group_kind'
                  ELSE 'group_status' END AS dim,
             NULL::text AS label_key,
             COALESCE(b.agent, b.model, b.origin, b.user_id::text, g.kind, g.status) AS value,
             count(*) AS n
        FROM base b LEFT JOIN session_groups g ON g.id = b.group_id
       GROUP BY GROUPING SETS ((b.agent), (b.model), (b.origin), (b.user_id), (g.kind), (g.status))
      UNION ALL
      SELECT 'label', l.key, v.value, count(*)
        FROM base b
       CROSS JOIN LATERAL jsonb_each(b.labels) l
       CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(l.value) = 'array' THEN l.value ELSE '[]'::jsonb END) v
       GROUP BY l.key, v.value
    )
    SELECT c.dim, c.label_key, c.value, c.n, u.email, u.username, u.full_name
      FROM counted c
      LEFT JOIN users u ON u.id = CASE WHEN c.dim = 'user' THEN c.value::uuid END
     WHERE c.value IS NOT NULL`;
}

function byCountThenValue<T extends { count: number }>(key: (entry: T) => string) {
  return (a: T, b: T) => b.count - a.count || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

/** Shapes the counted rows: lists by count desc then value asc (users by username). */
export function toFacets(rows: FacetRow[]): SessionFacetsResponse {
  const lists: Record<'agent' | 'model' | 'origin' | 'group_kind' | 'group_status', LabelFacetEntry[]> = {
    agent: [],
    model: [],
    origin: [],
    group_kind: [],
    group_status: [],
  };
  const users: UserFacetEntry[] = [];
  const labels = new Map<string, LabelFacetEntry[]>();
  for (const row of rows) {
    const entry = { count: Number(row.n), value: row.value! };
    if (row.dim === 'user') {
      if (row.username) users.push({ count: entry.count, id: row.value!, email: row.email!, username: row.username, full_name: row.full_name });
    } else if (row.dim === 'label') {
      const list = labels.get(row.label_key!) ?? [];
      list.push(entry);
      labels.set(row.label_key!, list);
    } else {
      lists[row.dim].push(entry);
    }
  }
  const byValue = byCountThenValue<LabelFacetEntry>((entry) => entry.value);
  return {
    agents: lists.agent.sort(byValue),
    models: lists.model.sort(byValue),
    origins: lists.origin.sort(byValue),
    users: users.sort(byCountThenValue<UserFacetEntry>((entry) => entry.username)),
    labels: Object.fromEntries([...labels.keys()].sort().map((key) => [key, labels.get(key)!.sort(byValue)])),
    group_kinds: lists.group_kind.sort(byValue),
    group_statuses: lists.group_status.sort(byValue),
  };
}

export async function sessionFacets(ctx: AppContext, org: string, ws: string, args: SessionFilterArgs): Promise<SessionFacetsResponse> {
  const labels = parseLabelFilters(args.label ?? [], ['label']); // 422 before the tenant lookup
  const access = await workspaceAccess(ctx, org, ws);
  const where = sessionWhere(access.workspace.id, access.viewer.user.id, args, labels);
  const rows = await database().query<FacetRow>(facetSql(where.sql), { bind: where.bind, type: QueryTypes.SELECT });
  return toFacets(rows);
}
