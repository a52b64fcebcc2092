import { nestedPast, parseJsonWithin } from '../../src/core/validation/json-text';

const bytes = (text: string) => Buffer.from(text);

describe('parseJsonWithin', () => {
  it('parses JSON nested up to the limit, and refuses one level more where it opens', () => {
    expect(parseJsonWithin(bytes('[[[1]]]'), 3)).toEqual({ ok: true, value: [[[1]]] });
    expect(parseJsonWithin(bytes('{"a":[{"b":[]}]}'), 3)).toEqual({ ok: false, position: 11, msg: 'JSON decode error: nested more than 3 levels deep' });
  });

  it('counts no bracket inside a string, whatever its escapes', () => {
    expect(parseJsonWithin(bytes('{"a":"[[[[{{{{"}'), 1)).toEqual({ ok: true, value: { a: '[[[[{{{{' } });
    expect(parseJsonWithin(bytes('{"a":"\\"[[[["}'), 1)).toEqual({ ok: true, value: { a: '"[[[[' } });
    // An escaped backslash ends the string at the quote after it: the bracket after that counts.
    expect(nestedPast(bytes('{"a":"\\\\","b":[1]}'), 1)).toBe(14);
    // nestedPast counts bytes (é is two); the position reported counts characters, as JSON.parse's does.
    expect(nestedPast(bytes('["é", ["ü"]]'), 1)).toBe(7);
    expect(parseJsonWithin(bytes('["é", ["ü"]]'), 1)).toMatchObject({ ok: false, position: 6 });
    // A byte of a broken UTF-8 sequence before a quote does not hide the quote; a backslash as the last byte ends the scan.
    expect(nestedPast(Buffer.from([0x5b, 0x22, 0xc3, 0x22, 0x2c, 0x5b, 0x5d, 0x5d]), 1)).toBe(5);
    expect(parseJsonWithin(bytes('["\\'), 1)).toMatchObject({ ok: false, msg: 'JSON decode error' });
  });

  it('leaves text that is not JSON to JSON.parse, with its position', () => {
    expect(parseJsonWithin(bytes('[1, 2'), 4)).toEqual({ ok: false, position: 5, msg: 'JSON decode error' });
    expect(parseJsonWithin(bytes('"unterminated [[['), 1)).toMatchObject({ ok: false, msg: 'JSON decode error' });
    expect(nestedPast(bytes(']]]]['), 1)).toBe(-1);
  });
});
