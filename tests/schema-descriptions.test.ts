import {
  buildSchema as buildSdl,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { ARGUMENT_GLOSSARY, FIELD_GLOSSARY, fillMissingDescriptions, ROOT_TYPE_GLOSSARY } from '../src/core/schema-descriptions';
import { createSchema } from '../src/schema';

/** Every type, field, argument and enum value of the schema without a non-empty description, as schema coordinates. */
function undescribed(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  const check = (coordinate: string, description: string | null | undefined) => {
    if (!description?.trim()) missing.push(coordinate);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    check(type.name, type.description);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        check(`${type.name}.${field.name}`, field.description);
        for (const arg of field.args) check(`${type.name}.${field.name}(${arg.name}:)`, arg.description);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) check(`${type.name}.${field.name}`, field.description);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) check(`${type.name}.${value.name}`, value.description);
    }
  }
  return missing.sort();
}

describe('schema descriptions', () => {
  it('describes every type, field, argument and enum value of the schema the server uses', async () => {
    expect(undescribed(await createSchema())).toEqual([]);
  });

  it('fills only missing descriptions from the glossary, never replacing a decorator\'s', () => {
    const schema = buildSdl(`
      type Query {
        "The thing's own words."
        thing(org: String!, "Already said." workspace: String!): Thing
      }
      type Thing {
        created_at: String!
        "Overrides the glossary."
        updated_at: String!
        name: String!
      }
    `);
    const used = fillMissingDescriptions(schema);
    expect(used.map((use) => use.coordinate).sort()).toEqual(['Query', 'Query.thing(org:)', 'Thing.created_at']);
    const thing = schema.getQueryType()!.getFields().thing;
    expect(thing.description).toBe("The thing's own words.");
    expect(thing.args.map((arg) => arg.description)).toEqual([ARGUMENT_GLOSSARY.org, 'Already said.']);
    const fields = (schema.getType('Thing') as GraphQLObjectType).getFields();
    expect([fields.created_at.description, fields.updated_at.description, fields.name.description]).toEqual([
      FIELD_GLOSSARY.created_at,
      'Overrides the glossary.',
      undefined,
    ]);
    expect(schema.getQueryType()!.description).toBe(ROOT_TYPE_GLOSSARY.Query);
  });

  it('uses every glossary entry in the served schema (an unused entry is removed, not kept)', async () => {
    const schema = await createSchema();
    // The schema was filled once when it was built: nothing is left to fill.
    expect(fillMissingDescriptions(schema)).toEqual([]);
    const used = new Set<string>();
    for (const type of Object.values(schema.getTypeMap())) {
      if (Object.hasOwn(ROOT_TYPE_GLOSSARY, type.name) && ROOT_TYPE_GLOSSARY[type.name] === type.description) used.add(`type ${type.name}`);
      if (!isObjectType(type) && !isInterfaceType(type)) continue;
      for (const field of Object.values(type.getFields())) {
        if (Object.hasOwn(FIELD_GLOSSARY, field.name) && FIELD_GLOSSARY[field.name] === field.description) used.add(`field ${field.name}`);
        for (const arg of field.args) {
          if (Object.hasOwn(ARGUMENT_GLOSSARY, arg.name) && ARGUMENT_GLOSSARY[arg.name] === arg.description) used.add(`argument ${arg.name}`);
        }
      }
    }
    const entries = [
      ...Object.keys(ROOT_TYPE_GLOSSARY).map((name) => `type ${name}`),
      ...Object.keys(FIELD_GLOSSARY).map((name) => `field ${name}`),
      ...Object.keys(ARGUMENT_GLOSSARY).map((name) => `argument ${name}`),
    ];
    expect(entries.filter((entry) => !used.has(entry))).toEqual([]);
  });
});
