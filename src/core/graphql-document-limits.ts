import { Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { ValidationError, type ValidationItem } from './errors';

/**
 * The size of a GraphQL document's field selections, checked after parsing
 * and before graphql-js validation. Validation is not linear: its
 * overlapping-fields rule compares every pair of fields that share a
 * response name in a selection set (one field repeated 5,000 times is 12.5
 * million comparisons), and again between the sub-selections of each such
 * pair. This walk is linear in the fields it visits and stops at
 * `maxFields`, so it bounds what validation may then do:
 *
 * - `maxFields`: fields and fragment spreads in the whole document once
 *   its fragments are expanded where they are spread (a fragment spread
 *   twice counts twice, so doubling fragments are refused after that many
 *   steps, never expanded further);
 * - `maxSelections`: fields and fragment spreads one selection set holds
 *   once its fragments and inline fragments are flattened and the
 *   sub-selections of fields with one response name merged (what graphql-js
 *   compares: its fields pairwise by name, each fragment reached with the
 *   set's fields and with every other one);
 * - `maxRepeatedFields`: fields with one response name in such a set.
 *
 * Operations and fragments never spread are the roots (validation visits
 * both); a cyclic spread is left to validation, which refuses it.
 */
export interface DocumentLimits {
  maxFields: number;
  maxSelections: number;
  maxRepeatedFields: number;
}

/** The fragments a selection set was reached through, to leave a cyclic spread alone. */
interface Chain {
  name: string;
  parent: Chain | null;
}

interface Reached {
  set: SelectionSetNode;
  chain: Chain | null;
}

function inChain(chain: Chain | null, name: string): boolean {
  for (let link = chain; link; link = link.parent) if (link.name === name) return true;
  return false;
}

class TooManyFields extends Error {}

/** Throws 422 validation_error (loc ["body", "query"]) naming each limit the document passes. */
export function checkDocumentLimits(document: DocumentNode, limits: DocumentLimits): void {
  const fragments = new Map<string, FragmentDefinitionNode>();
  const spread = new Set<string>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  // Spreads anywhere in the document (one pass over its nodes, fragments not expanded).
  const pending: SelectionSetNode[] = [];
  for (const definition of document.definitions) if ('selectionSet' in definition && definition.selectionSet) pending.push(definition.selectionSet);
  while (pending.length) {
    for (const selection of pending.pop()!.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) spread.add(selection.name.value);
      else if (selection.selectionSet) pending.push(selection.selectionSet);
    }
  }

  const problems = new Map<string, ValidationItem>();
  const report = (type: string, msg: string) => {
    if (!problems.has(type)) problems.set(type, { loc: ['body', 'query'], msg, type });
  };
  let total = 0;

  /** One merged selection set: the sets reached for one response name (or a root's). */
  function visit(sets: Reached[]): void {
    const byName = new Map<string, { fields: FieldNode[]; children: Reached[] }>();
    let count = 0;
    const collect = (set: SelectionSetNode, chain: Chain | null): void => {
      for (const selection of set.selections) {
        // Reported as soon as they are passed: the field limit may stop the walk inside this set.
        if (selection.kind !== Kind.INLINE_FRAGMENT) {
          count += 1;
          if (count === limits.maxSelections + 1) {
            report('query_selections', `Selection set limit of ${limits.maxSelections} fields and fragment spreads exceeded`);
          }
          total += 1;
          if (total > limits.maxFields) throw new TooManyFields();
        }
        if (selection.kind === Kind.FIELD) {
          const name = selection.alias?.value ?? selection.name.value;
          let group = byName.get(name);
          if (!group) byName.set(name, (group = { fields: [], children: [] }));
          group.fields.push(selection);
          if (group.fields.length === limits.maxRepeatedFields + 1) {
            report('query_repeated_fields', `Repeated field limit of ${limits.maxRepeatedFields} exceeded: "${name}" appears more than ${limits.maxRepeatedFields} times in one selection set`);
          }
          if (selection.selectionSet) group.children.push({ set: selection.selectionSet, chain });
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          collect(selection.selectionSet, chain);
        } else {
          const name = selection.name.value;
          const fragment = fragments.get(name);
          if (fragment && !inChain(chain, name)) collect(fragment.selectionSet, { name, parent: chain });
        }
      }
    };
    for (const { set, chain } of sets) collect(set, chain);
    for (const group of byName.values()) if (group.children.length) visit(group.children);
  }

  try {
    for (const definition of document.definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION) visit([{ set: definition.selectionSet, chain: null }]);
      else if (definition.kind === Kind.FRAGMENT_DEFINITION && !spread.has(definition.name.value)) {
        visit([{ set: definition.selectionSet, chain: { name: definition.name.value, parent: null } }]);
      }
    }
  } catch (error) {
    if (!(error instanceof TooManyFields)) throw error;
    report('query_fields', `Field limit of ${limits.maxFields} fields and fragment spreads exceeded (fragments expanded where they are spread)`);
  }
  if (problems.size) {
    const items = [...problems.values()];
    throw new ValidationError(items, items.map((item) => item.msg).join('; '));
  }
}
