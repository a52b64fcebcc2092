import { config, overrideConfig } from '../../src/config/config';
import type { AppContext } from '../../src/core/context';
import { ValidationError } from '../../src/core/errors';
import { loadWithinReply, newReplyBudget } from '../../src/core/reply-budget';

/**
 * What one request loads for its reply is held to MAX_REPLY_BYTES: the loads
 * of one request take turns (GraphQL starts a document's root fields at
 * once), each given what the ones before it left.
 */
const before = config().MAX_REPLY_BYTES;
beforeAll(() => overrideConfig({ MAX_REPLY_BYTES: 10_000 }));
afterAll(() => overrideConfig({ MAX_REPLY_BYTES: before }));

const context = (rest: boolean) => ({ rest: rest ? { method: 'GET', path: '/', query: new URLSearchParams() } : null, replyBudget: newReplyBudget() }) as unknown as AppContext;
const tick = () => new Promise((resolve) => setImmediate(resolve));

it('runs the loads of one request one after the other, each from what the ones before left; after a refusal none starts', async () => {
  const ctx = context(false);
  const seen: string[] = [];
  const load = (name: string, bytes: number) => async (left: number) => {
    seen.push(`${name} starts with ${left}`);
    await tick();
    seen.push(`${name} ends`);
    return { value: name, bytes };
  };
  const results = await Promise.allSettled([
    loadWithinReply(ctx, load('a', 6000)),
    loadWithinReply(ctx, load('b', 3000)),
    loadWithinReply(ctx, load('c', 2000)),
    loadWithinReply(ctx, load('d', 1)),
  ]);
  expect(seen).toEqual(['a starts with 10000', 'a ends', 'b starts with 4000', 'b ends', 'c starts with 1000', 'c ends']);
  expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected']);
  for (const result of results.slice(2)) {
    const refused = (result as PromiseRejectedResult).reason as ValidationError;
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused.errors).toEqual([{ loc: ['body', 'query'], msg: expect.stringContaining('10000'), type: 'reply_too_large' }]);
  }
});

it('refuses at the REST query string, and a load that throws leaves the budget as it was', async () => {
  const ctx = context(true);
  await expect(loadWithinReply(ctx, async () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
  await expect(loadWithinReply(ctx, async (left) => ({ value: left, bytes: 10_000 }))).resolves.toBe(10_000);
  await expect(loadWithinReply(ctx, async () => ({ value: null, bytes: 1 }))).rejects.toMatchObject({ errors: [{ loc: ['query'], type: 'reply_too_large' }] });
});

it('fails a load that reports no usable byte count (a bug), rather than let the budget go unchecked', async () => {
  const ctx = context(false);
  await expect(loadWithinReply(ctx, async () => ({ value: null, bytes: Number(undefined) }))).rejects.toThrow('a load reported NaN bytes');
  await expect(loadWithinReply(ctx, async (left) => ({ value: left, bytes: 1 }))).resolves.toBe(10_000);
});
