import type { Transaction } from 'sequelize';
import { plainQuery } from '../../db/hot';
import { MOVED_ATTACKS_SQL, RECOMPUTE_SQL, STUDY_ASSESSMENTS_SQL, upsertStudyAttacksSql } from './assessments.sql';

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
 */
export async function deriveAttacksFromSpans(organizationId: string, stored: StoredSpan[], transaction: Transaction): Promise<void> {
  const keys = new Map<string, [string, string]>();
  for (const span of stored) {
    if (span.span_type === 'study') keys.set(`${span.trace_id}/${span.span_id}`, [span.trace_id, span.span_id]);
    else if (span.span_type === 'trial' && span.parent_span_id) keys.set(`${span.trace_id}/${span.parent_span_id}`, [span.trace_id, span.parent_span_id]);
  }
  if (!keys.size) return;
  const bind = { organization_id: organizationId, trace_ids: [...keys.values()].map((key) => key[0]), span_ids: [...keys.values()].map((key) => key[1]) };
  const assessments = await plainQuery<{ id: string; workspace_id: string }>(STUDY_ASSESSMENTS_SQL, bind, { transaction });
  for (const assessment of assessments) {
    const [locked] = await plainQuery<{ attack_seq: number }>('SELECT attack_seq FROM airt_assessments WHERE id = $id FOR UPDATE', { id: assessment.id }, { transaction });
    await plainQuery(upsertStudyAttacksSql(), { ...bind, assessment_id: assessment.id, workspace_id: assessment.workspace_id, base_seq: locked.attack_seq }, { transaction });
    await plainQuery(
      RECOMPUTE_SQL,
      { assessment_id: assessment.id, last_seq: locked.attack_seq + keys.size },
      { transaction },
    );
  }
}

/**
 * Study spans a root moved to its own project's workspace (children stored
 * before their root, decisions §15) leave the assessments of the workspace
 * they left: their attacks there are removed and those assessments'
 * analytics recomputed. The moved spans are then derived like stored ones
 * (deriveAttacksFromSpans), in the assessment of their new workspace.
 */
export async function dropMovedAttacks(organizationId: string, moved: StoredSpan[], transaction: Transaction): Promise<void> {
  const studies = moved.filter((span) => span.span_type === 'study');
  if (!studies.length) return;
  const left = await plainQuery<{ id: string }>(
    MOVED_ATTACKS_SQL,
    { organization_id: organizationId, trace_ids: studies.map((span) => span.trace_id), span_ids: studies.map((span) => span.span_id) },
    { transaction },
  );
  for (const assessment of left) {
    const [locked] = await plainQuery<{ attack_seq: number }>('SELECT attack_seq FROM airt_assessments WHERE id = $id FOR UPDATE', { id: assessment.id }, { transaction });
    await plainQuery(RECOMPUTE_SQL, { assessment_id: assessment.id, last_seq: locked.attack_seq }, { transaction });
  }
}
