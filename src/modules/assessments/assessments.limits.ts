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

/** An assessment's attack manifest as JSON text, at most (a capability's manifest has the same bound; its configurations are free-form JSON, MAX_FREE_FORM_JSON_BYTES each). */
export const MAX_ATTACK_MANIFEST_BYTES = 128 * 1024;

/** A report's markdown (characters) and its structured JSON (bytes as JSON): the largest stored (1 MiB bodies bound the request anyway). */
export const MAX_REPORT_CONTENT = 500_000;
