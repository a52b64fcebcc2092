import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * Whether the current field's selection (one level down, through fragments)
 * includes any of `names`: a resolver uses it to skip work for fields the
 * operation did not ask for. REST selects every field.
 */
export function selectsAny(info: GraphQLResolveInfo, names: readonly string[]): boolean {
  const wanted = new Set(names);
  const visit = (set: SelectionSetNode | undefined): boolean =>
    (set?.selections ?? []).some((selection) => {
      if (selection.kind === Kind.FIELD) return wanted.has(selection.name.value);
      if (selection.kind === Kind.INLINE_FRAGMENT) return visit(selection.selectionSet);
      return visit(info.fragments[selection.name.value]?.selectionSet);
    });
  return info.fieldNodes.some((node) => visit(node.selectionSet));
}
