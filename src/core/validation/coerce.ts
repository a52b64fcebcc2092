import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLString,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLEnumType,
  type GraphQLInputField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLScalarType,
} from 'graphql';
import { MAX_COLLECTED_PROBLEMS, type ValidationItem } from '../errors';
import { inputClassOf, jsonSchemaRules } from './json-schema-rules';
import { rejectsUnknownKeys } from './api-input';

/**
 * Strict, pydantic-like checking of a plain JSON value against a GraphQL input
 * type. Unlike graphql-js coercion it reports every problem with a structured
 * location and a machine-readable type, drops unknown keys (or rejects them on
 * strict inputs, and everywhere with `extra: 'forbid'`: GraphQL variables,
 * which GraphQL's own coercion would refuse after) and never wraps a scalar
 * into a list. It returns the cleaned external value, ready to be passed as
 * a GraphQL variable.
 *
 * It never spends more than the problems are worth: a list longer than its
 * field's @ArrayMaxSize is one `too_long` problem, its items unread (a 2 MB
 * body of a million zeros took 4.5 s and 785 MB when each was checked and
 * refused first), and it stops once MAX_COLLECTED_PROBLEMS are found.
 */
export function checkInput(type: GraphQLInputType, value: unknown, loc: (string | number)[], errors: ValidationItem[], extra: 'ignore' | 'forbid' = 'ignore'): unknown {
  if (isNonNullType(type)) {
    if (value === undefined) {
      errors.push({ loc, msg: 'Field required', type: 'missing' });
      return undefined;
    }
    if (value === null) {
      errors.push(typeMismatch(type.ofType, loc, value));
      return undefined;
    }
    return checkInput(type.ofType, value, loc, errors, extra);
  }
  if (value === null || value === undefined) return value;
  if (isListType(type)) {
    if (!Array.isArray(value)) {
      errors.push({ loc, msg: 'Input should be a valid list', type: 'list_type' });
      return undefined;
    }
    const items = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index += 1) {
      if (errors.length >= MAX_COLLECTED_PROBLEMS) return undefined;
      items[index] = checkInput(type.ofType, value[index], [...loc, index], errors, extra);
    }
    return items;
  }
  if (isInputObjectType(type)) {
    if (typeof value !== 'object' || Array.isArray(value)) {
      errors.push({ loc, msg: 'Input should be a valid dictionary or object', type: 'dict_type' });
      return undefined;
    }
    const fields = type.getFields();
    const strict = extra === 'forbid' || rejectsUnknownKeys(type);
    const out: Record<string, unknown> = {};
    if (strict) {
      for (const key of Object.keys(value as Record<string, unknown>)) {
        if (errors.length >= MAX_COLLECTED_PROBLEMS) return undefined;
        if (!fields[key]) errors.push({ loc: [...loc, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
      }
    }
    for (const field of Object.values(fields)) {
      if (errors.length >= MAX_COLLECTED_PROBLEMS) return undefined;
      const item = (value as Record<string, unknown>)[field.name];
      if (item === undefined && field.defaultValue !== undefined) continue;
      const max = Array.isArray(item) ? maxItems(type, field) : null;
      if (max !== null && (item as unknown[]).length > max) {
        // class-validator's own words for @ArrayMaxSize, which would say the same after reading every item.
        errors.push({ loc: [...loc, field.name], msg: `${field.name} must contain no more than ${max} elements`, type: 'too_long' });
        continue;
      }
      const checked = checkInput(field.type, item, [...loc, field.name], errors, extra);
      if (checked !== undefined) out[field.name] = checked;
    }
    return out;
  }
  if (isEnumType(type)) {
    if (typeof value !== 'string' || !type.getValue(value)) {
      errors.push(enumMismatch(type, loc));
      return undefined;
    }
    return value;
  }
  return checkScalar(type as GraphQLScalarType, value, loc, errors);
}

/** The @ArrayMaxSize of a list field of an input type (the rule the OpenAPI document calls maxItems), null when it has none; found once per field. */
const listLimits = new WeakMap<GraphQLInputField, number | null>();
function maxItems(type: GraphQLInputObjectType, field: GraphQLInputField): number | null {
  let max = listLimits.get(field);
  if (max === undefined) {
    const target = inputClassOf(type.name);
    const rule = target ? jsonSchemaRules(target, field.name).own.maxItems : undefined;
    max = typeof rule === 'number' ? rule : null;
    listLimits.set(field, max);
  }
  return max;
}

function checkScalar(type: GraphQLScalarType, value: unknown, loc: (string | number)[], errors: ValidationItem[]): unknown {
  const ok = (() => {
    switch (type.name) {
      case GraphQLString.name:
        return typeof value === 'string';
      case GraphQLInt.name:
        return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= 2147483647;
      case GraphQLFloat.name:
        return typeof value === 'number' && Number.isFinite(value);
      case GraphQLBoolean.name:
        return typeof value === 'boolean';
      case GraphQLID.name:
        return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
      default:
        try {
          type.parseValue(value);
          return true;
        } catch {
          return false;
        }
    }
  })();
  if (!ok) {
    errors.push(typeMismatch(type, loc, value));
    return undefined;
  }
  // PostgreSQL text and jsonb cannot hold NUL characters (nor JSON a number past a double's range): refuse them here, not with a 500 or a null later.
  const problem = findBadJson(value, loc);
  if (problem) {
    errors.push(problem);
    return undefined;
  }
  return value;
}

/** A JSON object (not null, not an array). */
export const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON values nest at most this deep (deeper input is refused before anything recurses over it). */
export const MAX_JSON_DEPTH = 64;

/** A lone UTF-16 surrogate: JSON.stringify escapes it as \uD800, which PostgreSQL's jsonb refuses. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A string PostgreSQL cannot store (a NUL character, a lone surrogate): its 422 item at `loc`, else null. */
export function badString(value: string, loc: (string | number)[]): ValidationItem | null {
  if (value.includes('\u0000')) return { loc, msg: 'Input should not contain NUL (\\u0000) characters', type: 'string_type' };
  if (LONE_SURROGATE.test(value)) return { loc, msg: 'Input should be valid Unicode (a lone surrogate is not)', type: 'string_unicode' };
  return null;
}

/** The first value of a JSON scalar PostgreSQL cannot store, located under `loc`; its path is kept on one stack, copied only for the problem. */
function findBadJson(value: unknown, loc: (string | number)[]): ValidationItem | null {
  const path = [...loc];
  const at = (): (string | number)[] => [...path];
  const visit = (item: unknown): ValidationItem | null => {
    if (typeof item === 'string') return item.includes('\u0000') || LONE_SURROGATE.test(item) ? badString(item, at()) : null;
    // JSON text past a double's range (`1e400`) parses as Infinity, which JSON.stringify would store as null.
    if (typeof item === 'number') return Number.isFinite(item) ? null : { loc: at(), msg: 'Input should be a finite number', type: 'float_parsing' };
    if (item === null || typeof item !== 'object') return null;
    if (path.length - loc.length >= MAX_JSON_DEPTH) return { loc: at(), msg: `JSON nested more than ${MAX_JSON_DEPTH} levels deep`, type: 'value_error' };
    const entries: Iterable<[string | number, unknown]> = Array.isArray(item) ? item.entries() : Object.entries(item);
    for (const [key, child] of entries) {
      path.push(key);
      const found = (typeof key === 'string' && (key.includes('\u0000') || LONE_SURROGATE.test(key)) ? badString(key, at()) : null) ?? visit(child);
      path.pop();
      if (found) return found;
    }
    return null;
  };
  return visit(value);
}

function enumMismatch(type: GraphQLEnumType, loc: (string | number)[]): ValidationItem {
  const names = type.getValues().map((item) => `'${item.name}'`);
  const expected = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : names[0];
  return { loc, msg: `Input should be ${expected}`, type: 'enum' };
}

/** The largest GraphQL Int (32 bits, signed). */
const INT_MAX = 2 ** 31 - 1;

/** A number as query text: decimal, with or without a fraction or an exponent (`5`, `-0.5`, `.5`, `1e-05`, as Python's `str` writes them). */
const QUERY_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/** An integer as query text, as pydantic reads one: digits, `_` between them, perhaps a fraction of zeros (`1_000`, `5.00`); not `5.`, `5.5` or `1e3` (int_parsing). */
const QUERY_INTEGER = /^[+-]?\d+(_\d+)*(\.0+)?$/;

function typeMismatch(type: GraphQLInputType, loc: (string | number)[], value: unknown): ValidationItem {
  if (isListType(type)) return { loc, msg: 'Input should be a valid list', type: 'list_type' };
  if (isInputObjectType(type)) return { loc, msg: 'Input should be a valid dictionary or object', type: 'dict_type' };
  if (isEnumType(type)) return enumMismatch(type, loc);
  const named = getNamedType(type);
  switch (named.name) {
    case GraphQLString.name:
      return { loc, msg: 'Input should be a valid string', type: 'string_type' };
    case GraphQLInt.name:
      // A whole number past GraphQL's 32 bits is out of range, not a fraction.
      if (Number.isInteger(value)) {
        return (value as number) > 0
          ? { loc, msg: `Input should be less than or equal to ${INT_MAX}`, type: 'less_than_equal' }
          : { loc, msg: `Input should be greater than or equal to ${-INT_MAX - 1}`, type: 'greater_than_equal' };
      }
      return typeof value === 'number'
        ? { loc, msg: 'Input should be a valid integer', type: 'int_from_float' }
        : { loc, msg: 'Input should be a valid integer, unable to parse input as an integer', type: 'int_parsing' };
    case GraphQLFloat.name:
      return { loc, msg: 'Input should be a valid number', type: 'float_parsing' };
    case GraphQLBoolean.name:
      return { loc, msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing' };
    default: {
      const errorType = (isScalarType(named) && (named.extensions as { errorType?: string }).errorType) || 'value_error';
      const msg = errorType === 'uuid_parsing' ? 'Input should be a valid UUID' : `Input should be a valid ${named.name}`;
      return { loc, msg, type: errorType };
    }
  }
}

/**
 * Converts query-string text to the JSON value its GraphQL type expects, so
 * `checkInput` can judge it: integers and booleans (`true/false/1/0`) are
 * parsed, anything unparsable is left as text and reported by the check.
 */
export function fromQueryText(type: GraphQLInputType, values: string[]): unknown {
  const nullable = isNonNullType(type) ? type.ofType : type;
  const present = values.filter((value) => value !== '');
  if (present.length === 0) return undefined;
  if (isListType(nullable)) return present.map((value) => fromQueryText(nullable.ofType, [value]));
  const text = present[present.length - 1];
  const named = getNamedType(nullable);
  if (named === GraphQLInt) return QUERY_INTEGER.test(text.trim()) ? Number(text.replace(/_/g, '')) : text;
  if (named === GraphQLFloat) {
    const number = Number(text);
    return QUERY_NUMBER.test(text.trim()) && Number.isFinite(number) ? number : text;
  }
  if (named === GraphQLBoolean) {
    const lowered = text.toLowerCase();
    if (lowered === 'true' || lowered === '1') return true;
    if (lowered === 'false' || lowered === '0') return false;
    return text;
  }
  if (isInputObjectType(named)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
