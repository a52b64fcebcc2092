import { getMetadataStorage } from 'type-graphql';
import type { ValidationItem } from '../errors';
import { validateInstance } from '../validation/class-validation';

/**
 * The class-validator rules of a root field's `@Args()` class, run on the
 * arguments that did parse. A REST request with a type error in one query
 * parameter and a range error in another (`status=paused&limit=101`) then
 * gets both in one reply; without type errors the same rules run during
 * execution as usual. Locs are GraphQL-level (`['limit']`).
 */
export function argsRuleErrors(operation: 'query' | 'mutation', fieldName: string, variables: Record<string, unknown>): ValidationItem[] {
  const storage = getMetadataStorage();
  const handler = (operation === 'mutation' ? storage.mutations : storage.queries).find((item) => item.schemaName === fieldName);
  const out: ValidationItem[] = [];
  for (const param of handler?.params ?? []) {
    if (param.kind !== 'args') continue;
    const ArgsClass = param.getType() as unknown;
    if (typeof ArgsClass !== 'function') continue;
    out.push(...validateInstance(Object.assign(new (ArgsClass as new () => object)(), variables), []));
  }
  return out;
}
