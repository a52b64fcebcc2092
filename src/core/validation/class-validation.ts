import { validateSync, type ValidationError as ClassValidationError } from 'class-validator';
import {
  getNamedType,
  getNullableType,
  isInputObjectType,
  isListType,
  type GraphQLInputType,
} from 'graphql';
import type { ValidationItem } from '../errors';
import { inputClass } from './api-input';

/**
 * class-validator constraint names → the pydantic-style item types clients
 * already handle. A decorator may override with `context: { type }`.
 */
const TYPE_BY_CONSTRAINT: Record<string, string> = {
  isDefined: 'missing',
  maxLength: 'string_too_long',
  minLength: 'string_too_short',
  min: 'greater_than_equal',
  max: 'less_than_equal',
  isInt: 'int_parsing',
  isUuid: 'uuid_parsing',
  isUUID: 'uuid_parsing',
  isIn: 'enum',
  isEnum: 'enum',
  arrayMaxSize: 'too_long',
  arrayMinSize: 'too_short',
  isObject: 'dict_type',
  isEmail: 'value_error',
  matches: 'string_pattern_mismatch',
};

function itemType(error: ClassValidationError, constraint: string): string {
  const context = error.contexts?.[constraint] as { type?: string } | undefined;
  if (context?.type) return context.type;
  return TYPE_BY_CONSTRAINT[constraint] ?? 'value_error';
}

function flatten(errors: ClassValidationError[], prefix: (string | number)[], out: ValidationItem[]): void {
  for (const error of errors) {
    const key = /^\d+$/.test(error.property) ? Number(error.property) : error.property;
    const loc = [...prefix, key];
    for (const [constraint, msg] of Object.entries(error.constraints ?? {})) {
      out.push({ loc, msg, type: itemType(error, constraint) });
    }
    if (error.children?.length) flatten(error.children, loc, out);
  }
}

/** Runs class-validator on an instance; returns items located under `prefix`. */
export function validateInstance(instance: object, prefix: (string | number)[]): ValidationItem[] {
  const out: ValidationItem[] = [];
  flatten(validateSync(instance, { skipMissingProperties: true, forbidUnknownValues: false }), prefix, out);
  // Rules a decorator cannot place per element (each malformed list entry at its own index) come
  // from the class's static `check`, in the same reply as every other problem of the input.
  const check = (instance.constructor as { check?: (value: object) => ValidationItem[] }).check;
  if (check) for (const item of check(instance)) out.push({ ...item, loc: [...prefix, ...item.loc] });
  return out;
}

/** Builds class instances for a plain (already type-checked) input value. */
export function toInstance(type: GraphQLInputType, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    return Array.isArray(value) ? value.map((item) => toInstance(nullable.ofType, item)) : value;
  }
  if (isInputObjectType(nullable) && typeof value === 'object' && !Array.isArray(value)) {
    const Class = inputClass(nullable.name);
    const target: Record<string, unknown> = Class ? Object.create(Class.prototype) : {};
    const fields = nullable.getFields();
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      target[key] = fields[key] ? toInstance(fields[key].type, item) : item;
    }
    return target;
  }
  return value;
}

/** Validates a plain input value of a GraphQL input type with its class rules. */
export function validateInputValue(type: GraphQLInputType, value: unknown, prefix: (string | number)[]): ValidationItem[] {
  if (!isInputObjectType(getNamedType(type))) return [];
  const instance = toInstance(type, value);
  if (instance === null || typeof instance !== 'object') return [];
  if (Array.isArray(instance)) {
    return instance.flatMap((item, index) =>
      item && typeof item === 'object' ? validateInstance(item as object, [...prefix, index]) : [],
    );
  }
  return validateInstance(instance, prefix);
}
