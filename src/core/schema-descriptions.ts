import { isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';

/**
 * The schema's glossary: descriptions of the few names that mean exactly the
 * same thing wherever they appear, said once here instead of on every
 * decorator. Anything whose meaning depends on its type (an id, a status, a
 * count, a timestamp that can be null) is described in its decorator, and a
 * decorator's description always wins: the glossary only fills a missing one.
 * Keep it small; tests/schema-descriptions.test.ts requires every entry to be
 * used and every type, field, argument and enum value to be described.
 */

/** Output fields (of object and interface types), by name. */
export const FIELD_GLOSSARY: Readonly<Record<string, string>> = Object.freeze({
  created_at: 'When it was created.',
  updated_at: 'When it was last changed.',
});

/** Arguments of output fields (the root operations' path parameters), by name. */
export const ARGUMENT_GLOSSARY: Readonly<Record<string, string>> = Object.freeze({
  org: 'Key (URL slug) of an organization the caller belongs to; any other organization is not found (404).',
  workspace: 'Key (URL slug) of a workspace of that organization; an unknown workspace, or one outside an API key\'s limits, is not found (404).',
});

/** The root types, which type-graphql builds without a description. */
export const ROOT_TYPE_GLOSSARY: Readonly<Record<string, string>> = Object.freeze({
  Query: 'Read operations. Each needs an access token or API key (Authorization: Bearer, or X-API-Key).',
  Mutation: 'Write operations. Each needs an access token or API key, except signup, login, forgot_password, reset_password, verify_email and resend_verification.',
});

const lookUp = (glossary: Readonly<Record<string, string>>, name: string): string | undefined =>
  Object.hasOwn(glossary, name) ? glossary[name] : undefined;

/** One description the glossary gave, at its schema coordinate: `Type`, `Type.field` or `Type.field(arg:)`. */
export interface GlossaryUse {
  coordinate: string;
  entry: string;
}

/**
 * Fills the descriptions the decorators left out from the glossary, on a
 * built schema (once, where it is built), and returns what it filled.
 */
export function fillMissingDescriptions(schema: GraphQLSchema): GlossaryUse[] {
  const used: GlossaryUse[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    const rootDescription = lookUp(ROOT_TYPE_GLOSSARY, type.name);
    if (!type.description && rootDescription) {
      type.description = rootDescription;
      used.push({ coordinate: type.name, entry: type.name });
    }
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const fieldDescription = lookUp(FIELD_GLOSSARY, field.name);
      if (!field.description && fieldDescription) {
        field.description = fieldDescription;
        used.push({ coordinate: `${type.name}.${field.name}`, entry: field.name });
      }
      for (const arg of field.args) {
        const argDescription = lookUp(ARGUMENT_GLOSSARY, arg.name);
        if (!arg.description && argDescription) {
          arg.description = argDescription;
          used.push({ coordinate: `${type.name}.${field.name}(${arg.name}:)`, entry: arg.name });
        }
      }
    }
  }
  return used;
}
