import { execute, getArgumentValues, getOperationAST, getVariableValues, GraphQLError, Kind, type DocumentNode, type FragmentDefinitionNode, type ExecutionResult, type FormattedExecutionResult, type GraphQLSchema } from 'graphql';
import { config } from '../../config/config';
import type { AppContext } from '../context';
import { AppError, isStatementTimeout, replyTooLarge, ValidationError } from '../errors';
import { plainQuery, streamQuery } from '../../db/hot';
import { StatementReadTooLarge } from '../../db/driver-errors';
import { JsonArrayReply } from '../json-array-reply';
import { argsRuleErrors } from '../validation/arg-rules';
import { validateInputValue } from '../validation/class-validation';
import { collectFields } from '../graphql-selection';
import { compileQuery, REPLY_BYTES, rootColumn } from './compile';
import { ParameterConflict } from './sql-fields';
import { withEveryRootError } from '../root-errors';

/** A compiled reply PostgreSQL measured past MAX_REPLY_BYTES (compile.ts REPLY_BYTES): refused with its size, not read. */
class CompiledReplyTooLarge extends Error {
  constructor(readonly bytes: number | null) {
    super(`The reply would be ${bytes ?? 'over 1 GB'} bytes`);
  }
}

/** PostgreSQL's error when a subquery used as a value returns more than one row. */
const CARDINALITY_VIOLATION = '21000';
/** PostgreSQL's error for a value past its limits (a root's JSON over 1 GB). */
const PROGRAM_LIMIT_EXCEEDED = '54000';

/**
 * The data of a query PostgreSQL answered: the JSON text of each root key,
 * in reply order, or (`elements`) a list root's elements as they arrive.
 * Written out as it is (stringifyResult, or a REST route's one key), never
 * parsed in node.
 */
export class SqlData {
  constructor(readonly fields: ReadonlyMap<string, string | JsonArrayReply>) {}

  get text(): string {
    let out = '{';
    for (const [key, text] of this.fields) out += `${out.length > 1 ? ',' : ''}"${key}":${text}`;
    return `${out}}`;
  }
}

export type EngineResult = ExecutionResult | { data: SqlData; errors?: undefined };

export interface EngineRequest {
  document: DocumentNode;
  operationName?: string | null;
  variables?: Record<string, unknown>;
}

/**
 * The one read engine of both transports (Apollo calls it as its executor,
 * REST routes with their Sofa operation document): a query whose every
 * selected field is described in SQL is answered by one statement that
 * PostgreSQL serialises (compile.ts); anything else runs the schema's
 * resolvers (graphql-js, DataLoader batching). Mutations always run their
 * resolvers.
 */
export function createEngine(schema: GraphQLSchema) {
  async function compiled(request: EngineRequest, ctx: AppContext, elements: boolean): Promise<SqlData | null> {
    if (!config().GRAPHQL_SQL) return null;
    const query = compileQuery(schema, request.document, request.operationName, request.variables, ctx);
    if (!query) return null;
    // The argument rules the resolvers would check (422): theirs to report.
    if (query.roots.some(({ field, args }) => argsRuleErrors('query', field, args).length)) return null;
    try {
      if (elements && query.elements) {
        // The checks run now; the rows go out as PostgreSQL sends them.
        const { text, params } = await query.elements(ctx);
        const reply = new JsonArrayReply((element) => streamQuery(text, params, { prepare: { quota: 'graphql' } }, (values) => element(values[0] as string)));
        return new SqlData(new Map([[query.keys[0], reply]]));
      }
      const { text, params } = await query.statement(ctx);
      const [row] = await plainQuery<Record<string, string>>(text, params, { prepare: { quota: 'graphql' } });
      const replyBytes = Number(row[REPLY_BYTES]);
      if (replyBytes > config().MAX_REPLY_BYTES) throw new CompiledReplyTooLarge(replyBytes);
      const fields = new Map(query.keys.map((key, index) => [key, row[rootColumn(index)]]));
      // A root that found no row: the resolvers report why (a lookup's 404 beside the other roots' data).
      if (query.roots.some(({ key }) => fields.get(key) === 'null')) return null;
      return new SqlData(fields);
    } catch (error) {
      // The resolvers answer instead: an API error (not found, forbidden) exactly as they always report it,
      // a root that found several rows (an ambiguous reference: 409), two roots binding one name differently.
      // A reply PostgreSQL built past MAX_STATEMENT_READ_BYTES or MAX_REPLY_BYTES (or past its own limit of a value) is refused now,
      // not read again by the resolvers;
      // a statement cancelled at DB_STATEMENT_TIMEOUT_MS is 504 now, not run again by them (twice the wait, on a database already slow).
      if (error instanceof StatementReadTooLarge || error instanceof CompiledReplyTooLarge || isStatementTimeout(error)) throw error;
      if ((error as { code?: string }).code === PROGRAM_LIMIT_EXCEEDED) throw new CompiledReplyTooLarge(null);
      if (!(error instanceof AppError) && !(error instanceof ParameterConflict) && (error as { code?: string }).code !== CARDINALITY_VIOLATION) {
        ctx.logger.warn({ err: error }, 'compiled GraphQL query failed; executing it');
      }
      return null;
    }
  }

  return {
    /**
     * `elements`: a query of one list root answered in SQL gives its elements
     * as PostgreSQL sends them (a REST route writes them out as they come).
     */
    async execute(request: EngineRequest, ctx: AppContext, options: { elements?: boolean } = {}): Promise<EngineResult> {
      let data: SqlData | null;
      try {
        data = await compiled(request, ctx, options.elements ?? false);
      } catch (error) {
        // The query's one error (422 reply_too_large, 504 where they are mapped), as an execution reports one.
        const refusal = error instanceof CompiledReplyTooLarge ? replyTooLarge(ctx.rest ? 'rest' : 'graphql', error.bytes) : error;
        if (refusal !== error || error instanceof StatementReadTooLarge || isStatementTimeout(error)) return { errors: [new GraphQLError((refusal as Error).message, { originalError: refusal as Error })] };
        throw error;
      }
      if (data) return { data };
      // A mutation's root fields run one after the other: one refused by its input rules must not leave the ones before it done.
      const refused = mutationRuleErrors(schema, request);
      if (refused) return refused;
      const result = await execute({
        schema,
        document: request.document,
        contextValue: ctx,
        variableValues: request.variables,
        operationName: request.operationName ?? undefined,
      });
      return withEveryRootError(result, ctx);
    },
  };
}

export type Engine = ReturnType<typeof createEngine>;

/**
 * A mutation of several root fields whose arguments break their input
 * rules (a title too long, a page size out of range), refused before any of
 * them runs: the class-validator rules each field's resolver would check
 * (argument classes, input types) run on every root field first, with the
 * locations the resolver gives; null when every field passes (or the
 * mutation has one field, whose resolver checks before it writes; or
 * graphql-js will refuse its variables). What a service decides as it runs
 * (a 404, a 409, a rule it checks itself) still fails only its own field,
 * after the fields before it ran, as GraphQL runs a mutation's fields.
 */
function mutationRuleErrors(schema: GraphQLSchema, request: EngineRequest): ExecutionResult | null {
  const operation = getOperationAST(request.document, request.operationName);
  const mutationType = schema.getMutationType();
  if (operation?.operation !== 'mutation' || !mutationType) return null;
  // One field (every REST write): its resolver checks before it writes.
  const [first, ...others] = operation.selectionSet.selections;
  if (!others.length && first?.kind === Kind.FIELD) return null;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
  if (coerced.errors) return null;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of request.document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  const roots = collectFields(schema, fragments, coerced.coerced, mutationType, [operation.selectionSet]);
  if (roots.size < 2) return null;
  const errors: GraphQLError[] = [];
  for (const [key, [selection]] of roots) {
    const field = mutationType.getFields()[selection.name.value];
    if (!field) continue;
    let args: Record<string, unknown>;
    try {
      args = getArgumentValues(field, selection, coerced.coerced);
    } catch {
      continue;
    }
    const items = [
      ...argsRuleErrors('mutation', field.name, args),
      ...field.args.flatMap((arg) => (args[arg.name] === undefined ? [] : validateInputValue(arg.type, args[arg.name], [arg.name]))),
    ];
    if (items.length) {
      const error = new ValidationError(items);
      errors.push(new GraphQLError(error.message, { nodes: [selection], path: [key], originalError: error }));
    }
  }
  return errors.length ? { data: null, errors } : null;
}

/**
 * What stringifyResult gives for a result longer than V8's longest string
 * (about 512 MiB): far past MAX_REPLY_BYTES, answered as a reply too large
 * by the transport (Apollo would answer a throw with 500). Not JSON, so no
 * result's text can be it.
 */
export const UNWRITABLE_REPLY = '\u0000 reply past the longest string';

/** Apollo's stringifyResult: a result as JSON text, PostgreSQL's data written as it is. */
export function stringifyResult(value: FormattedExecutionResult): string {
  try {
    const { data, ...rest } = value as FormattedExecutionResult & { data?: unknown };
    if (!(data instanceof SqlData)) return `${JSON.stringify(value)}\n`;
    const head = JSON.stringify(Object.fromEntries(Object.entries(rest).filter(([, item]) => item !== undefined)));
    return `${head === '{}' ? '{' : `${head.slice(0, -1)},`}"data":${data.text}}\n`;
  } catch (error) {
    if (error instanceof RangeError) return UNWRITABLE_REPLY;
    throw error;
  }
}
