import { config } from '../../config/config';
import type { AppContext } from '../../core/context';
import { InvalidError } from '../../core/errors';
import { requireScope, resolveOrg, type OrgScope } from '../../core/tenancy/tenant-scope';
import { database } from '../../db/database';
import { copyIn, plainQuery } from '../../db/hot';
import type { Transaction } from 'sequelize';
import { deriveAttacksFromSpans, type StoredSpan } from '../assessments/trace-attacks';
import type { ExportEncoding, Rejection } from './otlp';
import { acceptedWindow, ensureSpanPartitions } from './span-partitions';
import { giveRowMemory, placedRows, readSpans, writeRows, type ExportRules, type Placement, type PreparedExport, type RowSpans, type SpanKey } from './span-rows';
import {
  COPY_RETRY_SPANS_SQL, COPY_SPANS_SQL, CREATE_RETRY_SPANS_SQL, EXPORT_PROJECTS_SQL, INSERT_RETRY_SPANS_SQL, LOCK_TRACES_SQL, REHOME_SQL, STORED_ROOTS_SQL, UNSETTLED_TRACES_SQL,
} from './traces.sql';

/**
 * OTLP span ingest (decisions §15): an export's spans, read and written as
 * rows (span-rows.ts), each placed in a project and its workspace, stored
 * in one transaction (one COPY), then the attacks of red-team assessments
 * derived from the `study` and `trial` spans that arrived.
 */
export const TRACES_WRITE = 'traces:write' as const;

export interface IngestResult {
  accepted: number;
  rejected: number;
  message: string;
}

interface ProjectRow {
  id: string;
  key: string;
  workspace_id: string;
  is_default: boolean;
  workspace_is_default: boolean;
}

/** The caller may write spans to the organization (checked before the body is read). */
export async function authorizeIngest(ctx: AppContext, orgKey: string): Promise<OrgScope> {
  const scope = await resolveOrg(ctx, orgKey);
  requireScope(scope, TRACES_WRITE);
  return scope;
}

/** What an export is read within now (OTLP_MAX_*, TRACE_RETENTION_DAYS). */
function exportRules(): ExportRules {
  const settings = config();
  return {
    maxSpans: settings.OTLP_MAX_SPANS,
    maxAttributes: settings.OTLP_MAX_ATTRIBUTES,
    maxAttributeLength: settings.OTLP_MAX_ATTRIBUTE_LENGTH,
    maxContainers: Math.floor(settings.OTLP_MAX_INFLATED_BYTES / 8),
    maxResourceBytes: settings.OTLP_MAX_INFLATED_BYTES,
    retentionDays: settings.TRACE_RETENTION_DAYS,
    ...acceptedWindow(),
  };
}

/**
 * Stores the spans of an export (its body, inflated, in `encoding`): read,
 * written as rows with room for their heads (span-rows.ts), the spans'
 * project look-up sent, the heads written once placed, and the rows sent by
 * one COPY. The rare export whose spans were partly stored already is read
 * and placed again for its INSERT.
 */
export async function ingestExport(scope: OrgScope, body: Uint8Array, encoding: ExportEncoding): Promise<IngestResult> {
  let batch = await placeExport(scope, readAndPlace(scope, body, encoding), 'copy');
  try {
    await storeBatch(scope, batch);
  } catch (error) {
    // Some spans were stored already (a retried export, or two exports of the same spans at once).
    if (!isUniqueViolation(error)) throw error;
    batch = await placeExport(scope, readAndPlace(scope, body, encoding), 'insert');
    await storeBatch(scope, batch);
  }
  await settleTraces(scope, batch.settling);
  return batch.result;
}

/**
 * How an export's rows are written: an export that holds no red-team span is
 * one statement, the COPY of `data`, its own transaction; otherwise (or for
 * the INSERT of an export stored before) its rows in one transaction with
 * the attacks they derive. `memory` holds `data`, kept for the next exports
 * once stored.
 */
interface Store {
  data: Buffer;
  memory: ArrayBuffer;
  /** The export's study and trial spans, and their traces (locked while stored). */
  redTeam: { traces: string[]; spans: StoredSpan[] } | null;
  how: 'copy' | 'insert';
}

/** An export read and placed: what to store (null when nothing is), the traces to settle after the commit, and the reply. */
interface Batch {
  store: Store | null;
  settling: string[];
  result: IngestResult;
}

/**
 * An export's rows, and its spans' placing. The look-up placing needs is
 * asked for first but goes out once the rows are written (the pool hands
 * its connection over asynchronously); the records are gone before it
 * answers. Yielding so that it went out first only let other exports'
 * reading run ahead of these rows (bench/README.md, 2026-11-28).
 */
function readAndPlace(scope: OrgScope, body: Uint8Array, encoding: ExportEncoding): { prepared: PreparedExport; placing: ReturnType<typeof placeSpans> } {
  const read = readSpans(body, encoding, exportRules());
  const placing = placeSpans(scope, read.spans, read.rejected);
  // Awaited by placeExport; this only keeps its failure from going unhandled should writing the rows throw first.
  placing.catch(() => undefined);
  return { prepared: writeRows(read), placing };
}

/** The prepared export's spans, each placed in its project, as what storeBatch writes. */
async function placeExport(scope: OrgScope, { prepared, placing }: ReturnType<typeof readAndPlace>, how: 'copy' | 'insert'): Promise<Batch> {
  const { spans, rejected, pendingCopies, repeats } = prepared;
  const { placements, home } = await placing;
  const redTeam: StoredSpan[] = [];
  let placed = 0;
  placements.forEach((placement, index) => {
    if (!placement) return;
    placed += 1;
    const type = spans.types[index];
    if (type === 'study' || type === 'trial') redTeam.push({ trace_id: spans.traceIds[index], span_id: spans.spanIds[index], parent_span_id: spans.parentIds[index], span_type: type });
  });
  const repeatsRefused = refusedRepeats(repeats, rejected);
  const refused = rejected.length + repeatsRefused;
  const result = { accepted: placed + pendingCopies + repeats.length - repeatsRefused, rejected: refused, message: rejectionMessage(refused, rejected) };
  if (!placed) {
    giveRowMemory(prepared.memory);
    return { store: null, settling: [], result };
  }
  const store: Store = {
    data: placedRows(scope.org.id, prepared, placements),
    memory: prepared.memory,
    redTeam: redTeam.length ? { traces: [...new Set(redTeam.map((span) => span.trace_id))], spans: redTeam } : null,
    how,
  };
  return { store, settling: settlingTraces(scope, spans, placements, home), result };
}

async function storeBatch(scope: OrgScope, { store }: Batch): Promise<void> {
  if (!store) return;
  await ensureSpanPartitions();
  if (store.how === 'copy' && !store.redTeam) await copyIn(COPY_SPANS_SQL, store.data);
  else await database().transaction((transaction) => storeRows(scope, store, transaction));
  // PostgreSQL has read every byte (a COPY resolves after ReadyForQuery); a failed one's memory is let go.
  giveRowMemory(store.memory);
}

/**
 * One transaction: the spans written by COPY (or, when some were stored
 * already, by COPY into a temporary table and INSERT … ON CONFLICT DO
 * NOTHING from it, which skips them), attacks derived from what is new.
 */
async function storeRows(scope: OrgScope, { data, redTeam, how }: Store, transaction: Transaction): Promise<void> {
  // Exports of one red-team trace take turns (a lock per trace, held to commit): a trial and its study arriving
  // in two exports at once would otherwise each miss the other's uncommitted span, and the trial would count nowhere.
  if (redTeam) await plainQuery(LOCK_TRACES_SQL, { organization_id: scope.org.id, trace_ids: redTeam.traces }, { transaction });
  let stored: StoredSpan[];
  if (how === 'copy') {
    // Optimistic: an exporter retries only after a failure, so the spans are almost always new. One already
    // stored makes the COPY fail on its key, and the caller runs the export again through the INSERT.
    await copyIn(COPY_SPANS_SQL, data, transaction);
    stored = redTeam?.spans ?? [];
  } else {
    await plainQuery(CREATE_RETRY_SPANS_SQL, {}, { transaction });
    await copyIn(COPY_RETRY_SPANS_SQL, data, transaction);
    stored = await plainQuery<StoredSpan>(INSERT_RETRY_SPANS_SQL, {}, { transaction });
  }
  await deriveAttacksFromSpans(scope.org.id, stored, transaction);
}

/**
 * The traces an export may have to settle once committed: those where it
 * placed children by default to wait for their root, and those of its roots
 * placed elsewhere than where such children wait (`home`, the default
 * project of the default workspace; a root placed there leaves them in the
 * right place). A workspace-limited key moves only spans of its own
 * workspace, so its roots settle nothing outside the default workspace.
 */
function settlingTraces(scope: OrgScope, spans: RowSpans, placements: (Placement | null)[], home: Placement): string[] {
  const keyWorkspace = scope.viewer.apiKey?.workspace_id ?? null;
  const movesHome = !keyWorkspace || keyWorkspace === home.workspace_id;
  const traces = new Set<string>();
  placements.forEach((placement, index) => {
    if (placement && (placement.project_inferred || (movesHome && spans.parentIds[index] === null && placement.project_id !== home.project_id))) traces.add(spans.traceIds[index]);
  });
  return [...traces];
}

/**
 * Children stored before their root, placed by default, follow it once both
 * are stored, and their attacks with them. Done after the export's commit:
 * of an export holding a root and one holding its children running at once,
 * each read the other's uncommitted spans as absent, and the one that
 * commits last finds both here. Usually one statement that finds nothing;
 * else one transaction under the traces' locks (the moved children may be a
 * study and its trials).
 */
async function settleTraces(scope: OrgScope, traceIds: string[]): Promise<void> {
  if (!traceIds.length) return;
  const organizationId = scope.org.id;
  const unsettled = await plainQuery<{ trace_id: string }>(UNSETTLED_TRACES_SQL, { organization_id: organizationId, trace_ids: traceIds }, { prepare: 'spans-unsettled' });
  if (!unsettled.length) return;
  const ids = unsettled.map((row) => row.trace_id);
  await database().transaction(async (transaction) => {
    await plainQuery(LOCK_TRACES_SQL, { organization_id: organizationId, trace_ids: ids }, { transaction });
    // A workspace-limited key moves only spans of its own workspace; the red-team spans moved come back.
    const moved = await plainQuery<StoredSpan>(
      REHOME_SQL,
      { organization_id: organizationId, trace_ids: ids, key_workspace_id: scope.viewer.apiKey?.workspace_id ?? null },
      { transaction, prepare: 'spans-rehome' },
    );
    await deriveAttacksFromSpans(organizationId, [], transaction, moved);
  });
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

function rejectionMessage(count: number, rejected: Rejection[]): string {
  if (!count) return '';
  const reasons = [...new Set(rejected.map((item) => item.reason))];
  return `${count} span(s) rejected: ${reasons.slice(0, 5).join('; ')}`;
}

/** How many of an export's repeated spans repeat a span it refused (each counts as refused, the others as accepted). */
function refusedRepeats(repeats: SpanKey[], rejected: Rejection[]): number {
  if (!repeats.length || !rejected.length) return 0;
  const refused = new Set(rejected.map((item) => `${item.trace_id}/${item.span_id}`));
  return repeats.filter((span) => refused.has(`${span.trace_id}/${span.span_id}`)).length;
}

/**
 * Each span's project and workspace: its own `dreadnode.project`, else its
 * root's (in this export, or stored before), else the default project (of
 * the default workspace, or of an API key's own workspace). A span naming a
 * project outside a workspace-limited key's workspace is rejected.
 */
async function placeSpans(scope: OrgScope, spans: RowSpans, rejected: Rejection[]): Promise<{ placements: (Placement | null)[]; home: Placement }> {
  const keyWorkspace = scope.viewer.apiKey?.workspace_id ?? null;
  const { traceIds, spanIds, parentIds, refs: ownRefs } = spans;
  const rootRefs = new Map<string, string | null>();
  parentIds.forEach((parent, index) => {
    if (parent === null) rootRefs.set(traceIds[index], ownRefs[index]);
  });
  const refs = [...new Set(ownRefs.filter((ref): ref is string => ref !== null))];
  const projects = await plainQuery<ProjectRow>(
    EXPORT_PROJECTS_SQL,
    { organization_id: scope.org.id, refs: [...refs, ...refs.map((ref) => ref.toLowerCase())], key_workspace_id: keyWorkspace },
    { prepare: 'spans-export-projects' },
  );
  const byRef = new Map<string, ProjectRow>();
  for (const project of projects) {
    // A key names a project in each workspace: the key's workspace first, then the default workspace, then the oldest.
    const rank = (row: ProjectRow) => (row.workspace_id === keyWorkspace ? 0 : row.workspace_is_default ? 1 : 2);
    for (const ref of [project.id, project.key]) {
      const held = byRef.get(ref);
      if (!held || rank(project) < rank(held)) byRef.set(ref, project);
    }
  }
  const fallback = projects.find((row) => row.is_default && (keyWorkspace ? row.workspace_id === keyWorkspace : row.workspace_is_default));
  // Where children wait for their root: the default project of the default workspace.
  const home = projects.find((row) => row.is_default && row.workspace_is_default);
  if (!fallback || !home) throw new InvalidError('The organization has no default project to receive spans');
  // Traces with a span that names no project and no root in this export: their stored root decides.
  const orphanTraces = [...new Set(traceIds.filter((traceId, index) => !ownRefs[index] && !rootRefs.has(traceId)))];
  const storedRoots = orphanTraces.length
    ? new Map(
        (await plainQuery<{ trace_id: string; project_id: string; workspace_id: string }>(STORED_ROOTS_SQL, { organization_id: scope.org.id, trace_ids: orphanTraces })).map(
          (row) => [row.trace_id, row],
        ),
      )
    : new Map<string, { project_id: string; workspace_id: string }>();

  const placements = traceIds.map((traceId, index) => {
    const ref = ownRefs[index] ?? rootRefs.get(traceId) ?? null;
    const named = ref ? (byRef.get(ref) ?? byRef.get(ref.toLowerCase())) : undefined;
    if (named && keyWorkspace && named.workspace_id !== keyWorkspace) {
      rejected.push({ span_id: spanIds[index], trace_id: traceId, reason: `project ${ref} is outside the API key's workspace` });
      return null;
    }
    if (named) return { project_id: named.id, workspace_id: named.workspace_id, project_inferred: false };
    const root = storedRoots.get(traceId);
    if (root && (!keyWorkspace || root.workspace_id === keyWorkspace)) return { project_id: root.project_id, workspace_id: root.workspace_id, project_inferred: false };
    // Nothing names it yet: the default project, until its root arrives naming one (a workspace-limited key's spans stay in its workspace).
    const waitsForRoot = parentIds[index] !== null && !rootRefs.has(traceId) && !keyWorkspace;
    return { project_id: fallback.id, workspace_id: fallback.workspace_id, project_inferred: waitsForRoot };
  });
  return { placements, home: { project_id: home.id, workspace_id: home.workspace_id, project_inferred: false } };
}
