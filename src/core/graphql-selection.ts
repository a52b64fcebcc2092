import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * The names of the fields selected under the current field at `path` (field
 * names, through fragments and every occurrence of the field): a resolver
 * uses them to skip work for fields the operation did not ask for. REST
 * selects every field.
 */
export function selectedFields(info: GraphQLResolveInfo, path: readonly string[] = []): Set<string> {
  const out = new Set<string>();
  const visit = (set: SelectionSetNode | undefined, depth: number): void => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet, depth);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) visit(info.fragments[selection.name.value]?.selectionSet, depth);
      else if (depth === path.length) out.add(selection.name.value);
      else if (selection.name.value === path[depth]) visit(selection.selectionSet, depth + 1);
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet, 0);
  return out;
}
