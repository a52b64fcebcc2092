import { stringifyResult, UNWRITABLE_REPLY } from '../../src/core/graphql-sql/engine';

/**
 * A GraphQL result longer than V8's longest string cannot be written: it is
 * answered as a reply too large (graphql-transport.ts) rather than thrown to
 * Apollo, which answered 500.
 */
describe('stringifyResult', () => {
  it('writes a result as JSON text', () => {
    expect(stringifyResult({ data: { a: 1 } })).toBe('{"data":{"a":1}}\n');
  });

  it('gives UNWRITABLE_REPLY, not a throw, for a result past the longest string', () => {
    const tooLong = { toJSON: () => 'x'.repeat(2 ** 28) + 'x'.repeat(2 ** 28) };
    expect(() => JSON.stringify({ value: tooLong })).toThrow(RangeError);
    expect(stringifyResult({ data: { value: tooLong } })).toBe(UNWRITABLE_REPLY);
    expect(() => JSON.parse(UNWRITABLE_REPLY)).toThrow();
  });

  it('still throws what is not the length of the text', () => {
    const broken = { toJSON: () => { throw new TypeError('broken'); } };
    expect(() => stringifyResult({ data: { value: broken } })).toThrow(TypeError);
  });
});
