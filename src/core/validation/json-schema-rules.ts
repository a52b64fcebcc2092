import { getMetadataStorage as validationStorage } from 'class-validator';
import { getMetadataStorage as typeStorage } from 'type-graphql';

/**
 * The class-validator rules of a class's property as JSON Schema keywords,
 * for the OpenAPI document: the same decorators that validate a request
 * document it (one source). Rules without a JSON Schema form (a password's
 * strength, custom checks) stay in the property's description.
 */
type Json = Record<string, unknown>;

/** class-validator's rule name → the JSON Schema keywords it means, given its constraints. */
const KEYWORDS: Record<string, (constraints: unknown[]) => Json> = {
  maxLength: ([max]) => ({ maxLength: max }),
  minLength: ([min]) => ({ minLength: min }),
  max: ([max]) => ({ maximum: max }),
  min: ([min]) => ({ minimum: min }),
  arrayMaxSize: ([max]) => ({ maxItems: max }),
  arrayMinSize: ([min]) => ({ minItems: min }),
  isEmail: () => ({ format: 'email' }),
  isUrl: () => ({ format: 'uri' }),
  isUuid: () => ({ format: 'uuid' }),
  isIn: ([values]) => (Array.isArray(values) ? { enum: values } : {}),
  matches: ([pattern]) => (pattern instanceof RegExp && !pattern.flags ? { pattern: pattern.source } : {}),
};

interface RuleMetadata {
  propertyName: string;
  name?: string;
  constraints?: unknown[];
  each?: boolean;
}

/** The keywords of `property` of `target`: on the value, and (`each` rules) on its items. */
export function jsonSchemaRules(target: new () => object, property: string): { own: Json; items: Json } {
  const storage = validationStorage() as unknown as { getTargetValidationMetadatas(target: unknown, schema: string, always: boolean, strict: boolean): RuleMetadata[] };
  const own: Json = {};
  const items: Json = {};
  for (const rule of storage.getTargetValidationMetadatas(target, '', true, false)) {
    const keywords = rule.propertyName === property && rule.name ? KEYWORDS[rule.name] : undefined;
    if (keywords) Object.assign(rule.each ? items : own, keywords(rule.constraints ?? []));
  }
  return { own, items };
}

/** The class behind a GraphQL input type (type-graphql's metadata), if it has one. */
export function inputClassOf(typeName: string): (new () => object) | null {
  const found = typeStorage().inputTypes.find((item) => item.name === typeName);
  return (found?.target as (new () => object) | undefined) ?? null;
}
