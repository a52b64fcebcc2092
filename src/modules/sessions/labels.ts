import { ValidationError, type ValidationItem } from '../../core/errors';
import type { SessionLabels } from '../../../models/session.model';

export const MAX_LABEL_KEYS = 64;

/**
 * Checks a labels object (key → list of strings) and returns it with each
 * key's values de-duplicated, so facet counts count sessions. Problems are
 * located under `loc` (e.g. ['input', 'labels', 'env', 0]).
 */
export function normaliseLabels(value: Record<string, unknown>, loc: (string | number)[]): SessionLabels {
  const errors: ValidationItem[] = [];
  const keys = Object.keys(value);
  if (keys.length > MAX_LABEL_KEYS) {
    errors.push({ loc, msg: `Labels should have at most ${MAX_LABEL_KEYS} keys, not ${keys.length}`, type: 'too_long' });
  }
  const out: SessionLabels = {};
  for (const key of keys) {
    const values = value[key];
    if (key.trim() === '') errors.push({ loc: [...loc, key], msg: 'Label keys must not be empty', type: 'string_too_short' });
    if (!Array.isArray(values)) {
      errors.push({ loc: [...loc, key], msg: 'Input should be a valid list', type: 'list_type' });
      continue;
    }
    values.forEach((item, index) => {
      if (typeof item !== 'string') errors.push({ loc: [...loc, key, index], msg: 'Input should be a valid string', type: 'string_type' });
    });
    out[key] = [...new Set(values.filter((item): item is string => typeof item === 'string'))];
  }
  if (errors.length) throw new ValidationError(errors);
  return out;
}

/**
 * Parses `key:value` label filters (split at the first colon). Values of one
 * key are OR-ed, different keys AND-ed. A filter without a colon or with an
 * empty key is a 422 at `loc`.
 */
export function parseLabelFilters(filters: string[], loc: (string | number)[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const errors: ValidationItem[] = [];
  filters.forEach((filter) => {
    const colon = filter.indexOf(':');
    if (colon <= 0) {
      errors.push({ loc, msg: `Label filter '${filter.slice(0, 100)}' should have the form key:value`, type: 'value_error' });
      return;
    }
    const key = filter.slice(0, colon);
    const list = out.get(key) ?? [];
    list.push(filter.slice(colon + 1));
    out.set(key, list);
  });
  if (errors.length) throw new ValidationError(errors);
  return out;
}
