import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isAbstractType,
  Kind,
  typeFromAST,
  visit,
  type DefinitionNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type NamedTypeNode,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * The fields a selection collects for an object type, by response key, in
 * the order graphql-js executes them (its CollectFields algorithm, built on
 * graphql's public exports): @skip/@include honoured, inline fragments and
 * fragment spreads followed when their type condition applies, each
 * fragment once.
 */
export function collectFields(
  schema: GraphQLSchema,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  type: GraphQLObjectType,
  selectionSets: readonly (SelectionSetNode | undefined)[],
): Map<string, FieldNode[]> {
  const fields = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const visit = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (!included(selection, variables)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const nodes = fields.get(key);
        if (nodes) nodes.push(selection);
        else fields.set(key, [selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(schema, selection.typeCondition, type)) visit(selection.selectionSet);
      } else {
        const name = selection.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const fragment = fragments[name];
        if (fragment && applies(schema, fragment.typeCondition, type)) visit(fragment.selectionSet);
      }
    }
  };
  for (const set of selectionSets) if (set) visit(set);
  return fields;
}

function included(node: SelectionNode, variables: Record<string, unknown>): boolean {
  if (!node.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
}

function applies(schema: GraphQLSchema, condition: NamedTypeNode | undefined, type: GraphQLObjectType): boolean {
  if (!condition) return true;
  const conditional = typeFromAST(schema, condition);
  if (conditional === type) return true;
  return conditional !== undefined && isAbstractType(conditional) && schema.isSubType(conditional, type);
}

/** The fragments of `document` that its `operation` spreads, at any depth, by name. */
export function fragmentsUsed(document: DocumentNode, operation: OperationDefinitionNode): FragmentDefinitionNode[] {
  const fragments = new Map(
    document.definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
  );
  const used = new Map<string, FragmentDefinitionNode>();
  const pending: DefinitionNode[] = [operation];
  while (pending.length) {
    visit(pending.pop()!, {
      FragmentSpread(node) {
        const fragment = fragments.get(node.name.value);
        if (fragment && !used.has(fragment.name.value)) {
          used.set(fragment.name.value, fragment);
          pending.push(fragment);
        }
      },
    });
  }
  return [...used.values()].sort((a, b) => a.name.value.localeCompare(b.name.value));
}
