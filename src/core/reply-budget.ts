import { config } from '../config/config';
import type { AppContext } from './context';
import { ValidationError } from './errors';

/**
 * MAX_REPLY_BYTES bounds every reply: the transports check the reply's text
 * (http/respond.ts), and what a request loads to make its reply is held to
 * it too (`loadWithinReply`), so one request that reads many large things (a
 * GraphQL document of aliased transcript reads) is refused before it has
 * loaded them all, not after.
 */

/**
 * The answer to a request whose reply would pass MAX_REPLY_BYTES: 422
 * validation_error at `loc` (the GraphQL query, a REST query string), as the
 * GraphQL budget declines a query: the request is well-formed and declined
 * for the size of what it asks. Not 413, which is about the request's own
 * body.
 */
export function replyTooLarge(loc: (string | number)[], bytes: number | null): ValidationError {
  const max = config().MAX_REPLY_BYTES;
  const size = bytes === null ? `over the limit of ${max} bytes` : `${bytes} bytes, over the limit of ${max}`;
  const msg = `The reply would be ${size}; narrow the query (a smaller limit or page, fewer fields)`;
  return new ValidationError([{ loc, msg, type: 'reply_too_large' }], msg);
}

/** What a request may still load for its reply (negative once a load was refused), and the load under way (loads take turns, so each sees what the one before left). */
export interface ReplyBudget {
  left: number;
  turn: Promise<unknown>;
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
export function loadWithinReply<T>(ctx: AppContext, load: (left: number) => Promise<{ value: T; bytes: number }>): Promise<T> {
  const budget = (ctx.replyBudget ??= { left: config().MAX_REPLY_BYTES, turn: Promise.resolve() });
  const refuse = () => replyTooLarge(ctx.rest ? ['query'] : ['body', 'query'], null);
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
