/** Bounds a request's input and a reply's lists share (a reply holds no more than a request may give), and the ranges of an attack's numbers. */

/**
 * The range of an attack's numbers however it arrives: the attack ingest
 * refuses values outside (422); read from a span's `dreadnode.airt.*`
 * attributes (decisions §15) they are clamped to it. Bounded so sums and
 * averages over 100,000s of attacks stay finite in PostgreSQL.
 */
export const ATTACK_RANGES = {
  asr: [0, 1],
  best_score: [-1e9, 1e9],
  execution_time_s: [0, 1e9],
} as const;

/** Parts of a best candidate or response, and transforms, of one attack span. */
export const MAX_SPAN_LIST_ITEMS = 100;
