import 'reflect-metadata';
import { parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { config } from '../src/config/config';
import { checkDocumentLimits, type DocumentLimits } from '../src/core/graphql-document-limits';
import { createSchema } from '../src/schema';
import { log } from './harness';
import { median } from './load';

/**
 * The document size checked before graphql-js validation
 * (GRAPHQL_MAX_FIELDS, GRAPHQL_MAX_SELECTIONS, GRAPHQL_MAX_REPEATED_FIELDS):
 * each shape that makes validation work hard is grown to the largest size
 * the check (and the token limit) admits, and graphql-js validation of it is
 * timed against the served schema, in process, no database. Target: no
 * admitted document holds the event loop more than 50 ms. The issue's
 * document is shown refused, with what validating it would have cost.
 *
 * Options (environment): BENCH_RUNS (timed runs per shape, default 5).
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TARGET_MS = 50;

interface Shape {
  name: string;
  build: (n: number) => string;
  max: number;
}

const times = (n: number, text: (index: number) => string, separator = ' ') => Array.from({ length: n }, (_, index) => text(index)).join(separator);
const KEY_FIELDS = ['active', 'allowed_scopes', 'created_at', 'id', 'last_used_at', 'masked_key', 'name'];

function shapes(repeated: number): Shape[] {
  return [
    { name: 'one field repeated in one selection set', build: (n) => `{ api_keys { ${times(n, () => 'id')} } }`, max: 5000 },
    { name: 'every field of a type repeated in one set', build: (n) => `{ api_keys { ${times(n, (index) => KEY_FIELDS[index % KEY_FIELDS.length])} } }`, max: 5000 },
    {
      name: 'a list field repeated at the root, each with its fields',
      build: (n) => `{ ${times(n, () => `api_keys { ${KEY_FIELDS.join(' ')} }`)} }`,
      max: 1000,
    },
    {
      name: 'n aliased lists, each with one field repeated',
      build: (n) => `{ ${times(n, (index) => `k${index}: api_keys { ${times(repeated, () => 'id')} }`)} }`,
      max: 1000,
    },
    {
      name: 'sessions → group → sessions, 2 copies a level, n levels',
      build: (n) => {
        const level = (depth: number): string => (depth === 0 ? 'id id' : times(2, () => `group { sessions { ${level(depth - 1)} } }`));
        return `{ workspace(org: "o", workspace: "w") { sessions { ${level(n)} } } }`;
      },
      max: 12,
    },
    {
      name: 'n fragments spread in one set, one aliased field each',
      build: (n) => `{ api_keys { ${times(n, (index) => `...A${index}`)} } }\n${times(n, (index) => `fragment A${index} on ApiKeyResponse { a${index}: id }`, '\n')}`,
      max: 1000,
    },
    {
      name: 'a chain of n fragments, each spreading the next',
      build: (n) => `{ api_keys { ...F0 } }\n${times(n, (index) => `fragment F${index} on ApiKeyResponse { ${index + 1 < n ? `...F${index + 1}` : 'id'} }`, '\n')}`,
      max: 1000,
    },
    {
      name: 'n operations spreading one fragment',
      build: (n) => `${times(n, (index) => `query Q${index} { api_keys { ...K } }`, '\n')}\nfragment K on ApiKeyResponse { ${KEY_FIELDS.join(' ')} }`,
      max: 1000,
    },
    {
      name: 'sessions → group nested n levels',
      build: (n) => `{ workspace(org: "o", workspace: "w") { ${times(n, () => 'sessions { group {')} id ${times(n, () => '} }')} } }`,
      max: 2000,
    },
  ];
}

function parsed(query: string, maxTokens: number): DocumentNode | null {
  try {
    return parse(query, { maxTokens });
  } catch {
    return null;
  }
}

function admitted(query: string, limits: DocumentLimits, maxTokens: number): DocumentNode | null {
  const document = parsed(query, maxTokens);
  if (!document) return null;
  try {
    checkDocumentLimits(document, limits);
    return document;
  } catch {
    return null;
  }
}

function timeValidation(schema: GraphQLSchema, document: DocumentNode, runs: number): number {
  const samples: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const t0 = performance.now();
    validate(schema, document, specifiedRules);
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

export async function main(): Promise<void> {
  const schema = await createSchema();
  const settings = config();
  const limits: DocumentLimits = {
    maxFields: settings.GRAPHQL_MAX_FIELDS,
    maxSelections: settings.GRAPHQL_MAX_SELECTIONS,
    maxRepeatedFields: settings.GRAPHQL_MAX_REPEATED_FIELDS,
  };
  const maxTokens = settings.GRAPHQL_MAX_TOKENS;
  log(`limits: fields ${limits.maxFields}, selections ${limits.maxSelections}, repeated ${limits.maxRepeatedFields}, tokens ${maxTokens}`);

  const issue = `{ api_keys { ${times(4990, () => 'id')} } }`;
  const issueDocument = parsed(issue, maxTokens)!;
  const t0 = performance.now();
  let refusal = '';
  try {
    checkDocumentLimits(issueDocument, limits);
  } catch (error) {
    refusal = (error as Error).message;
  }
  const checkMs = performance.now() - t0;
  log(`the issue's document (${issue.length} characters): refused in ${checkMs.toFixed(2)} ms (${refusal.slice(0, 80)}…); validating it would take ${timeValidation(schema, issueDocument, 1).toFixed(0)} ms`);

  const rows: { name: string; n: number; characters: number; checkMs: number; validateMs: number }[] = [];
  for (const shape of shapes(limits.maxRepeatedFields)) {
    // The largest n the check admits (the check is monotonic in n for these shapes).
    let low = 0;
    let high = shape.max;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (admitted(shape.build(mid), limits, maxTokens)) low = mid;
      else high = mid - 1;
    }
    if (low === 0) {
      log(`${shape.name}: refused at every size`);
      continue;
    }
    const query = shape.build(low);
    const document = admitted(query, limits, maxTokens)!;
    const c0 = performance.now();
    checkDocumentLimits(document, limits);
    const check = performance.now() - c0;
    const validateMs = timeValidation(schema, document, RUNS);
    rows.push({ name: shape.name, n: low, characters: query.length, checkMs: check, validateMs });
    log(`${shape.name}: n=${low}, validation ${validateMs.toFixed(1)} ms`);
  }

  console.log('\n| shape | largest admitted n | characters | check (ms) | graphql-js validation (ms) |');
  console.log('|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.name} | ${row.n} | ${row.characters} | ${row.checkMs.toFixed(2)} | ${row.validateMs.toFixed(1)} |`);
  const worst = rows.reduce((a, b) => (b.validateMs > a.validateMs ? b : a), rows[0]);
  console.log(`\nSlowest admitted document: ${worst.name} (n=${worst.n}) ${worst.validateMs.toFixed(1)} ms: target <= ${TARGET_MS} ms ${worst.validateMs <= TARGET_MS ? 'met' : 'MISSED'}`);
}
