import { getMetadataStorage } from 'type-graphql';
import type { ValidationItem } from '../errors';
import { validateInstance } from './class-validation';

/**
 * The class-validator rules of a root field's `@Args()` class, run on the
 * arguments that did parse. A REST request with a type error in one query
 * parameter and a range error in another (`status=paused&limit=101`) then
 * gets both in one reply; without type errors the same rules run during
 * execution as usual. Locs are GraphQL-level (`['limit']`).
 */
export function argsRuleErrors(operation: 'query' | 'mutation', fieldName: string, variables: Record<string, unknown>): ValidationItem[] {
  const out: ValidationItem[] = [];
  for (const ArgsClass of argsClasses(operation, fieldName)) {
    out.push(...validateInstance(Object.assign(new ArgsClass(), variables), []));
  }
  return out;
}

/** A root field's `@Args()` classes (the REST parameters' rules in the OpenAPI document too), looked up once per field (the schema's metadata does not change after it is built). */
const argsClassesOf = new Map<string, (new () => object)[]>();
export function argsClasses(operation: 'query' | 'mutation', fieldName: string): (new () => object)[] {
  const key = `${operation}.${fieldName}`;
  let classes = argsClassesOf.get(key);
  if (!classes) {
    const storage = getMetadataStorage();
    const handler = (operation === 'mutation' ? storage.mutations : storage.queries).find((item) => item.schemaName === fieldName);
    classes = (handler?.params ?? []).flatMap((param) => {
      if (param.kind !== 'args') return [];
      const ArgsClass = param.getType() as unknown;
      return typeof ArgsClass === 'function' ? [ArgsClass as new () => object] : [];
    });
    // A field not (yet) in the metadata is looked up again next time rather than remembered without rules.
    if (handler) argsClassesOf.set(key, classes);
  }
  return classes;
}
