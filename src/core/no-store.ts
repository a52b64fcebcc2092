import { BREAK, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema } from 'graphql';
import { Extensions } from 'type-graphql';

/**
 * Marks an object type's field that no cache may keep: a secret shown once
 * (an access token, a new API key), or a state read through a URL holding a
 * secret (a device code's status): every reply that selects it, over REST
 * or GraphQL, success or error, carries `Cache-Control: no-store`, so no
 * browser, proxy or CDN keeps a copy. Declared on the field, so a new
 * operation returning the same type is covered without a word at its route.
 */
export function NoStore(): PropertyDecorator {
  return Extensions({ noStore: true });
}

export const NO_STORE_HEADERS: Readonly<Record<string, string>> = { 'Cache-Control': 'no-store' };

/** Per schema, per parsed document (Apollo and the REST plans reuse their documents): whether it selects a @NoStore field. */
const verdicts = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, boolean>>();

export function selectsNoStoreField(schema: GraphQLSchema, document: DocumentNode): boolean {
  let known = verdicts.get(schema);
  if (!known) {
    known = new WeakMap();
    verdicts.set(schema, known);
  }
  const cached = known.get(document);
  if (cached !== undefined) return cached;
  let found = false;
  const typeInfo = new TypeInfo(schema);
  // Fragments are visited too: a secret selected anywhere in the document is enough (no-store on a reply that did not need it is harmless).
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        if (!typeInfo.getFieldDef()?.extensions?.noStore) return undefined;
        found = true;
        return BREAK;
      },
    }),
  );
  known.set(document, found);
  return found;
}
