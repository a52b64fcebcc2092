import { spanReplyJson } from '../src/modules/assessments/assessments.sql';
import type { Migration } from './types';

/**
 * Each attack span keeps its REST reply text (AttackSpanResponse as JSON),
 * written once at ingest: spans never change, and an attack list of 10,000
 * spans is then one string_agg. Existing spans are filled here.
 */
export const up: Migration = async ({ context: sql }) => {
  await sql.query(`ALTER TABLE airt_attack_spans ADD COLUMN reply_json text`);
  await sql.query(`UPDATE airt_attack_spans s SET reply_json = ${spanReplyJson('s')}`);
};
