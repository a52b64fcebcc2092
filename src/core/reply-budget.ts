import { config } from '../config/config';
import { replyTooLarge } from './errors';
import { plainQuery } from '../db/hot';

/**
 * MAX_REPLY_BYTES bounds every reply: the transports check the reply's text
 * (http/respond.ts), and what a request loads to make its reply is held to
 * it too (`loadWithinReply`), so one request that reads many large things (a
 * GraphQL document of aliased transcript reads) is refused before it has
 * loaded them all, not after.
 */

/** The request a load is for, as loadWithinReply needs it (an AppContext; a loader factory's `request`): its budget, and whether it is a REST route's. */
export interface ReplyRequest {
  replyBudget: ReplyBudget;
  rest: object | null;
}

/** What a request may still load for its reply (negative once a load was refused), and the load under way (loads take turns, so each sees what the one before left). */
export interface ReplyBudget {
  left: number;
  turn: Promise<unknown>;
}

/**
 * A request's budget, made with its context: one object however the context
 * is copied (Apollo runs each operation on a shallow copy, while the loaders
 * keep the context they were made for), so every load of the request counts
 * against it.
 */
export function newReplyBudget(): ReplyBudget {
  return { left: config().MAX_REPLY_BYTES, turn: Promise.resolve() };
}

/**
 * Runs `load` with the bytes the request may still load for its reply and
 * counts the bytes it loaded; past what is left, replyTooLarge where the
 * request asked (the REST query string, the GraphQL document), and every
 * later load of the request is refused before it starts. The loads of one
 * request run one after the other (GraphQL runs a document's root fields
 * at once), so none starts from a budget another is spending. (`load` must
 * not itself call loadWithinReply for the same request: it would wait for
 * its own turn.)
 */
export function loadWithinReply<T>(ctx: ReplyRequest, load: (left: number) => Promise<{ value: T; bytes: number }>): Promise<T> {
  const budget = ctx.replyBudget;
  const refuse = () => replyTooLarge(ctx.rest ? 'rest' : 'graphql', null);
  const run = async () => {
    if (!(budget.left >= 0)) throw refuse();
    const { value, bytes } = await load(budget.left);
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new Error(`loadWithinReply: a load reported ${bytes} bytes`);
    budget.left -= bytes;
    if (budget.left < 0) throw refuse();
    return value;
  };
  const turn = budget.turn.then(run, run);
  budget.turn = turn.catch(() => undefined);
  return turn;
}

/**
 * The rows of `rows` (a statement whose rows carry their size as `size`)
 * within what the request may still load for its reply (the `left` that
 * loadWithinReply gives, bound as `$budget`): in `order` (columns of those
 * rows, each with ASC or DESC if need be), cut where their running size
 * passes $budget, those within it and the first one past it (which makes
 * the load refused), each with `loaded`, the size up to and with it
 * (loadedBytes). PostgreSQL adds up the sizes as it reads the rows, and
 * builds only the rows it keeps: a value stored out of line (TOAST) is read
 * for a row it sends, not for one it cut. `select` is the list of the rows
 * `y` sent (every column by default).
 */
export function withinBudgetSql(rows: string, order: string[], select = 'y.*'): string {
  const by = (alias: string) => order.map((column) => `${alias}.${column}`).join(', ');
  return `SELECT ${select === 'y.*' ? select : `${select}, y.loaded`}
            FROM (SELECT x.*, sum(x.size) OVER (ORDER BY ${by('x')} ROWS UNBOUNDED PRECEDING) AS loaded FROM (${rows}) x) y
           WHERE y.loaded - y.size <= $budget ORDER BY ${by('y')}`;
}

/**
 * The rows of a read cut at the request's reply budget, the one way the
 * services and loaders read rows that may each be large: withinBudgetSql
 * over `rows` (its rows carry their size as `size`) in `order`, `select`ed,
 * run by plainQuery with `bind` and the budget (`$budget`), its load
 * counted (loadWithinReply). The rows come without the read's own `size`
 * and `loaded` (they would otherwise travel on into replies built from the
 * rows as they are: a generated report's findings).
 */
export function rowsWithinReply<T extends object>(
  request: ReplyRequest,
  read: { rows: string; order: string[]; select?: string; bind: Record<string, unknown>; prepare?: boolean },
): Promise<T[]> {
  return loadWithinReply(request, async (budget) => {
    const found = await plainQuery<T & { size?: unknown; loaded: string }>(withinBudgetSql(read.rows, read.order, read.select), { ...read.bind, budget }, { prepare: read.prepare });
    return { value: found.map(({ size: _size, loaded: _loaded, ...row }) => row as T), bytes: loadedBytes(found.map((row) => row.loaded)) };
  });
}

/**
 * The condition under which a compiled root answers in one statement (its
 * `from`, or SqlListRoot.within): the rows of `rows` (each carrying its
 * `size`) come to at most the root's share of MAX_REPLY_BYTES, bound as
 * `$compiled_share` (compiledShare): a document may hold a root per alias,
 * and PostgreSQL sums the sizes before it builds a row. Past it, the
 * resolvers answer, within the request's budget.
 */
export const withinCompiledShareSql = (rows: string) => `(SELECT coalesce(sum(sized.size), 0) FROM (${rows}) sized) <= $compiled_share`;
export const compiledShare = () => ({ compiled_share: Math.floor(config().MAX_REPLY_BYTES / (config().GRAPHQL_MAX_ALIASES + 1)) });

/** What a read cut by withinBudgetSql loaded: the largest `loaded` of its rows (0 for none). */
export const loadedBytes = (loaded: unknown[]): number => loaded.reduce<number>((most, value) => Math.max(most, Number(value)), 0);
