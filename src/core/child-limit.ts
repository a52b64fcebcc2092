/** A navigation field's `limit` as it is served: brought into 1–`max` (a larger one is served as `max`). */
export function clampChildLimit(limit: number, max: number): number {
  return Math.max(1, Math.min(limit, max));
}
