import fs from 'node:fs';
import path from 'node:path';
import { Kind, parse, print, visit, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { rest, type HttpResult } from './http';
import type { TestApp } from './test-app';

/** Named example operations, one file per domain (graphql/operations/<domain>.graphql). */
export const OPERATIONS_DIR = path.resolve(__dirname, '../../graphql/operations');

interface Definition<T> {
  file: string;
  node: T;
}

interface OperationIndex {
  files: string[];
  operations: Map<string, Definition<OperationDefinitionNode>>;
  fragments: Map<string, Definition<FragmentDefinitionNode>>;
}

let cached: OperationIndex | undefined;

/**
 * Every operation and fragment of graphql/operations/*.graphql by name. Names
 * are unique across files, so an operation may use another domain's fragment.
 */
export function operationIndex(): OperationIndex {
  if (cached) return cached;
  const files = fs
    .readdirSync(OPERATIONS_DIR)
    .filter((name) => name.endsWith('.graphql'))
    .sort();
  const index: OperationIndex = { files, operations: new Map(), fragments: new Map() };
  for (const file of files) {
    const document = parse(fs.readFileSync(path.join(OPERATIONS_DIR, file), 'utf8'));
    for (const definition of document.definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION) {
        const name = definition.name?.value;
        if (!name) throw new Error(`${file}: every operation needs a name`);
        if (index.operations.has(name)) throw new Error(`${file}: operation ${name} is also in ${index.operations.get(name)!.file}`);
        index.operations.set(name, { file, node: definition });
      } else if (definition.kind === Kind.FRAGMENT_DEFINITION) {
        const name = definition.name.value;
        if (index.fragments.has(name)) throw new Error(`${file}: fragment ${name} is also in ${index.fragments.get(name)!.file}`);
        index.fragments.set(name, { file, node: definition });
      } else {
        throw new Error(`${file}: only operations and fragments belong here (found ${definition.kind})`);
      }
    }
  }
  cached = index;
  return index;
}

function spreadNames(node: OperationDefinitionNode | FragmentDefinitionNode): string[] {
  const names: string[] = [];
  visit(node, {
    FragmentSpread(spread) {
      names.push(spread.name.value);
    },
  });
  return names;
}

/** The named operation plus every fragment it uses (transitively), as one document. */
export function operationDocument(name: string): DocumentNode {
  const index = operationIndex();
  const operation = index.operations.get(name);
  if (!operation) throw new Error(`no operation named ${name} in ${OPERATIONS_DIR}`);
  const used = new Map<string, FragmentDefinitionNode>();
  const pending = spreadNames(operation.node);
  while (pending.length) {
    const fragmentName = pending.pop()!;
    if (used.has(fragmentName)) continue;
    const fragment = index.fragments.get(fragmentName);
    if (!fragment) throw new Error(`operation ${name} uses unknown fragment ${fragmentName}`);
    used.set(fragmentName, fragment.node);
    pending.push(...spreadNames(fragment.node));
  }
  return { kind: Kind.DOCUMENT, definitions: [operation.node, ...used.values()] };
}

/** The printed text of a named operation, ready to send. */
export function operation(name: string): string {
  return print(operationDocument(name));
}

/** Runs a named operation from graphql/operations through the real HTTP handler. */
export async function runOperation<T = any>(
  app: TestApp,
  name: string,
  variables: Record<string, unknown> = {},
  token?: string,
): Promise<HttpResult<{ data?: T; errors?: { message: string; path?: string[]; extensions: Record<string, any> }[] }>> {
  return rest(app, 'POST', '/graphql', { token, body: { query: operation(name), operationName: name, variables } });
}
