import { ValidationError, type ValidationItem } from '../../core/errors';
import { checkIndexEntry, textBytes } from '../../core/validation/index-entry';
import type { SessionLabels } from '../../../models/session.model';

export const MAX_LABEL_KEYS = 64;
export const MAX_LABEL_KEY_LENGTH = 64;
export const MAX_LABEL_VALUE_LENGTH = 255;
export const MAX_LABEL_VALUES_PER_KEY = 64;
/**
 * UTF-8 bytes of the labels as JSON. The labels are carried in the INCLUDE
 * part of sessions_active_workspace_idx, whose entries must stay under the
 * btree row limit (2704 bytes) together with the other included columns.
 */
export const MAX_LABELS_BYTES = 2000;

/** An upper bound of the size of labels stored as jsonb (headers, entries, alignment). */
export function labelsStoredBytes(labels: SessionLabels): number {
  let bytes = 8; // varlena header + object header
  for (const key of Object.keys(labels)) {
    bytes += 4 + Buffer.byteLength(key, 'utf8') + 4 + 3 + 4; // key entry, key, value entry, alignment, array header
    for (const item of labels[key]) bytes += 4 + Buffer.byteLength(item, 'utf8');
  }
  return bytes;
}

/**
 * 422 when a session's agent, model and labels together would not fit in its
 * list index entry (sessions_active_workspace_idx carries them). Located at
 * `loc` (the labels, or the field being set).
 */
export function checkSessionIndexEntry(session: { agent: string | null; model: string; labels: SessionLabels }, loc: (string | number)[]): void {
  checkIndexEntry(textBytes(session.agent) + textBytes(session.model) + labelsStoredBytes(session.labels), 'Labels, agent and model', loc);
}

/**
 * Checks a labels object (key → list of strings) and returns it with each
 * key's values de-duplicated, so facet counts count sessions. Problems are
 * located under `loc` (e.g. ['input', 'labels', 'env', 0]). The result has
 * no prototype, so keys such as `__proto__` are kept as ordinary keys.
 */
export function normaliseLabels(value: Record<string, unknown>, loc: (string | number)[]): SessionLabels {
  const errors: ValidationItem[] = [];
  const keys = Object.keys(value);
  if (keys.length > MAX_LABEL_KEYS) {
    errors.push({ loc, msg: `Labels should have at most ${MAX_LABEL_KEYS} keys, not ${keys.length}`, type: 'too_long' });
  }
  const out: SessionLabels = Object.create(null) as SessionLabels;
  for (const key of keys) {
    const values = value[key];
    if (key.trim() === '') errors.push({ loc: [...loc, key], msg: 'Label keys must not be empty', type: 'string_too_short' });
    if ([...key].length > MAX_LABEL_KEY_LENGTH) {
      errors.push({ loc: [...loc, key], msg: `Label keys should have at most ${MAX_LABEL_KEY_LENGTH} characters`, type: 'string_too_long' });
    }
    if (!Array.isArray(values)) {
      errors.push({ loc: [...loc, key], msg: 'Input should be a valid list', type: 'list_type' });
      continue;
    }
    if (values.length > MAX_LABEL_VALUES_PER_KEY) {
      errors.push({
        loc: [...loc, key],
        msg: `A label should have at most ${MAX_LABEL_VALUES_PER_KEY} values, not ${values.length}`,
        type: 'too_long',
      });
    }
    values.forEach((item, index) => {
      if (typeof item !== 'string') errors.push({ loc: [...loc, key, index], msg: 'Input should be a valid string', type: 'string_type' });
      else if ([...item].length > MAX_LABEL_VALUE_LENGTH) {
        errors.push({
          loc: [...loc, key, index],
          msg: `Label values should have at most ${MAX_LABEL_VALUE_LENGTH} characters`,
          type: 'string_too_long',
        });
      }
    });
    // defineProperty, not assignment: `out['__proto__'] = …` would not create a key on a plain object.
    Object.defineProperty(out, key, {
      value: [...new Set(values.filter((item): item is string => typeof item === 'string'))],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (!errors.length) {
    const bytes = Buffer.byteLength(JSON.stringify(out), 'utf8');
    if (bytes > MAX_LABELS_BYTES) {
      errors.push({ loc, msg: `Labels should take at most ${MAX_LABELS_BYTES} bytes as JSON, not ${bytes}`, type: 'too_long' });
    }
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
