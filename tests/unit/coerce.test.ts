import { GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLString } from 'graphql';
import type { ValidationItem } from '../../src/core/errors';
import { JSONObjectScalar, UUIDScalar } from '../../src/core/scalars';
import { checkInput, fromQueryText } from '../../src/core/validation/coerce';

function check(type: Parameters<typeof checkInput>[0], value: unknown) {
  const errors: ValidationItem[] = [];
  const result = checkInput(type, value, ['query', 'p'], errors);
  return { result, errors };
}

describe('query-string parsing', () => {
  it.each([
    ['true', true],
    ['1', true],
    ['TRUE', true],
    ['false', false],
    ['0', false],
  ])('reads boolean %s as %s', (text, expected) => {
    expect(check(GraphQLBoolean, fromQueryText(GraphQLBoolean, [text]))).toEqual({ result: expected, errors: [] });
  });

  it('rejects any other boolean text with bool_parsing', () => {
    const { errors } = check(GraphQLBoolean, fromQueryText(GraphQLBoolean, ['maybe']));
    expect(errors).toEqual([{ loc: ['query', 'p'], msg: expect.any(String), type: 'bool_parsing' }]);
  });

  it('keeps thousands of repeated values as one list', () => {
    const values = Array.from({ length: 5000 }, (_, index) => `v${index}`);
    const type = new GraphQLList(new GraphQLNonNull(GraphQLString));
    const { result, errors } = check(type, fromQueryText(type, values));
    expect(errors).toEqual([]);
    expect(result).toHaveLength(5000);
  });

  it('reports a non-integer with int_parsing and an empty value as absent', () => {
    expect(check(GraphQLInt, fromQueryText(GraphQLInt, ['12x'])).errors[0].type).toBe('int_parsing');
    expect(check(GraphQLInt, fromQueryText(GraphQLInt, ['42'])).result).toBe(42);
    expect(fromQueryText(GraphQLInt, [''])).toBeUndefined();
  });

  it('reads integer text as pydantic does (checked against pydantic 2.13: 1_000 and 5.00 are integers; 1e3, 5., 5.5 are int_parsing)', () => {
    for (const text of ['1e3', '1E+3', '.5e1', '0x10', '5.', '5.5', '1__0', '_1']) {
      expect(check(GraphQLInt, fromQueryText(GraphQLInt, [text])).errors[0]).toMatchObject({ loc: ['query', 'p'], type: 'int_parsing' });
    }
    for (const [text, value] of [['5.0', 5], ['5.00', 5], ['-7', -7], ['1_000', 1000], [' 42 ', 42]] as const) {
      expect(check(GraphQLInt, fromQueryText(GraphQLInt, [text])).result).toBe(value);
    }
  });

  it("reads a number with an exponent or a leading dot, as Python's str writes small floats (1e-05)", () => {
    for (const [text, expected] of [['1e-05', 0.00001], ['.5', 0.5], ['5e-1', 0.5], ['-2.5E+2', -250], ['3.', 3]] as const) {
      expect(check(GraphQLFloat, fromQueryText(GraphQLFloat, [text]))).toEqual({ result: expected, errors: [] });
    }
    for (const text of ['1e', '.', 'e5', '0x10', 'Infinity', 'NaN', '1_000']) {
      expect(check(GraphQLFloat, fromQueryText(GraphQLFloat, [text])).errors[0].type).toBe('float_parsing');
    }
  });

  it('reports a whole number past 32 bits as out of range, not as a fraction', () => {
    expect(check(GraphQLInt, fromQueryText(GraphQLInt, ['2147483647'])).result).toBe(2147483647);
    expect(check(GraphQLInt, fromQueryText(GraphQLInt, ['2147483648'])).errors).toEqual([
      { loc: ['query', 'p'], msg: 'Input should be less than or equal to 2147483647', type: 'less_than_equal' },
    ]);
    expect(check(GraphQLInt, -1e20).errors[0]).toMatchObject({ type: 'greater_than_equal', msg: 'Input should be greater than or equal to -2147483648' });
    // A fraction written as query text is text pydantic cannot read as an integer; as a JSON number it is int_from_float.
    expect(check(GraphQLInt, fromQueryText(GraphQLInt, ['1.5'])).errors[0].type).toBe('int_parsing');
    expect(check(GraphQLInt, 1.5).errors[0].type).toBe('int_from_float');
  });
});

describe('strict input checks', () => {
  const Color = new GraphQLEnumType({ name: 'Color', values: { red: {}, blue: {} } });

  it('reports a bad UUID with uuid_parsing', () => {
    expect(check(UUIDScalar, 'not-a-uuid').errors[0].type).toBe('uuid_parsing');
    expect(check(UUIDScalar, '0B9F6A8E-2D7C-4F7E-9A41-5C3E2F1D0A9B').errors).toEqual([]);
  });

  it('reports an unknown enum value with enum and lists the allowed values', () => {
    const { errors } = check(Color, 'green');
    expect(errors[0]).toEqual({ loc: ['query', 'p'], msg: "Input should be 'red' or 'blue'", type: 'enum' });
  });

  it('never wraps a scalar into a list', () => {
    expect(check(new GraphQLList(GraphQLString), 'one').errors[0].type).toBe('list_type');
  });

  it('reports a missing required value with missing', () => {
    expect(check(new GraphQLNonNull(GraphQLString), undefined).errors[0].type).toBe('missing');
  });
});

describe('NUL characters', () => {
  it('refuses a NUL character in a string and inside JSON values and keys', () => {
    expect(check(GraphQLString, 'a\u0000b').errors[0]).toMatchObject({ loc: ['query', 'p'], type: 'string_type' });
    expect(check(JSONObjectScalar, { nested: ['ok', 'bad\u0000'] }).errors[0].loc).toEqual(['query', 'p', 'nested', 1]);
    expect(check(JSONObjectScalar, { 'k\u0000': 1 }).errors[0].loc).toEqual(['query', 'p', 'k\u0000']);
    expect(check(GraphQLString, 'plain').errors).toEqual([]);
  });
});
