import type { Transaction } from 'sequelize';
import { plainQuery } from '../../db/hot';
import { DROP_MOVED_ATTACKS_SQL, LEFT_ASSESSMENTS_SQL, LOCK_ASSESSMENTS_SQL, RECOMPUTE_SQL, STUDY_ASSESSMENTS_SQL, upsertStudyAttacksSql } from './assessments.sql';

/** A span just stored by the OTLP ingest. */
export interface StoredSpan {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  span_type: string | null;
}

/**
 * Red-team attacks from spans (decisions §15): a `study` span naming an
 * assessment of its workspace is one attack, its `trial` children its
 * trials. Called in the ingest's transaction with the spans it stored:
 * the studies among them, and the parents of the trials among them, are
 * (re)written as attack rows beside the attack ingest's, then the
 * assessment's analytics are recomputed by the same statement as an attack
 * ingest's, under the same row lock. Whichever way attacks arrive, the
 * attack list, analytics, trace statistics and trials read one table.
 *
 * `moved`: study and trial spans a root moved to its own project's
 * workspace (children stored before their root). They are derived like
 * stored ones, in the assessment of their new workspace, and a moved
 * study's attack leaves the assessments of the workspace it left (their
 * analytics recomputed). Every assessment touched is locked first, all in
 * one statement in id order, before any attack row is written or removed:
 * the order of every other writer (the attack ingest, an assessment's
 * deletion), so two exports never wait on each other in a cycle.
 */
export async function deriveAttacksFromSpans(organizationId: string, stored: StoredSpan[], transaction: Transaction, moved: StoredSpan[] = []): Promise<void> {
  const keys = new Map<string, [string, string]>();
  for (const span of [...stored, ...moved]) {
    if (span.span_type === 'study') keys.set(`${span.trace_id}/${span.span_id}`, [span.trace_id, span.span_id]);
    else if (span.span_type === 'trial' && span.parent_span_id) keys.set(`${span.trace_id}/${span.parent_span_id}`, [span.trace_id, span.parent_span_id]);
  }
  if (!keys.size) return;
  const bind = { organization_id: organizationId, trace_ids: [...keys.values()].map((key) => key[0]), span_ids: [...keys.values()].map((key) => key[1]) };
  const studies = moved.filter((span) => span.span_type === 'study');
  const movedBind = { organization_id: organizationId, trace_ids: studies.map((span) => span.trace_id), span_ids: studies.map((span) => span.span_id) };
  const assessments = await plainQuery<{ id: string; workspace_id: string }>(STUDY_ASSESSMENTS_SQL, bind, { transaction });
  const left = studies.length ? await plainQuery<{ id: string }>(LEFT_ASSESSMENTS_SQL, movedBind, { transaction }) : [];
  const ids = [...new Set([...assessments, ...left].map((assessment) => assessment.id))];
  if (!ids.length) return;
  // An assessment deleted meanwhile is not locked, and its attacks went with it.
  const locked = new Map(
    (await plainQuery<{ id: string; attack_seq: number }>(LOCK_ASSESSMENTS_SQL, { ids }, { transaction })).map((row) => [row.id, row.attack_seq]),
  );
  if (left.length) await plainQuery(DROP_MOVED_ATTACKS_SQL, movedBind, { transaction });
  for (const id of ids) {
    const seq = locked.get(id);
    if (seq === undefined) continue;
    const derived = assessments.find((assessment) => assessment.id === id);
    if (derived) await plainQuery(upsertStudyAttacksSql(), { ...bind, assessment_id: id, workspace_id: derived.workspace_id, base_seq: seq }, { transaction });
    await plainQuery(RECOMPUTE_SQL, { assessment_id: id, last_seq: derived ? seq + keys.size : seq }, { transaction });
  }
}
