import { isUtf8 } from 'node:buffer';
import { scanJson, parseJsonWithin, validUtf8Prefix } from '../../src/core/validation/json-text';

const bytes = (text: string) => Buffer.from(text);

describe('parseJsonWithin', () => {
  it('parses JSON nested up to the limit, and refuses one level more where it opens', () => {
    expect(parseJsonWithin(bytes('[[[1]]]'), 3)).toEqual({ ok: true, value: [[[1]]], containers: 3 });
    expect(parseJsonWithin(bytes('{"a":[{"b":[]}]}'), 3)).toEqual({ ok: false, position: 11, msg: 'JSON decode error: nested more than 3 levels deep' });
  });

  it('counts no bracket inside a string, whatever its escapes', () => {
    expect(parseJsonWithin(bytes('{"a":"[[[[{{{{"}'), 1)).toEqual({ ok: true, value: { a: '[[[[{{{{' }, containers: 1 });
    expect(parseJsonWithin(bytes('{"a":"\\"[[[["}'), 1)).toEqual({ ok: true, value: { a: '"[[[[' }, containers: 1 });
    // An escaped backslash ends the string at the quote after it: the bracket after that counts.
    expect(scanJson(bytes('{"a":"\\\\","b":[1]}'), 1).deepAt).toBe(14);
    // scanJson counts bytes (é is two); the position reported counts characters, as JSON.parse's does.
    expect(scanJson(bytes('["é", ["ü"]]'), 1).deepAt).toBe(7);
    expect(parseJsonWithin(bytes('["é", ["ü"]]'), 1)).toMatchObject({ ok: false, position: 6 });
    // A byte of a broken UTF-8 sequence before a quote does not hide the quote; a backslash as the last byte ends the scan.
    expect(scanJson(Buffer.from([0x5b, 0x22, 0xc3, 0x22, 0x2c, 0x5b, 0x5d, 0x5d]), 1).deepAt).toBe(5);
    expect(parseJsonWithin(bytes('["\\'), 1)).toMatchObject({ ok: false, msg: 'JSON decode error' });
  });

  it('counts the arrays and objects parsing would build, and refuses one more than allowed where it opens', () => {
    expect(parseJsonWithin(bytes('[{}, [], {"a": [1, "[{}]"]}]'), 10, undefined, 5)).toEqual({ ok: true, value: [{}, [], { a: [1, '[{}]'] }], containers: 5 });
    expect(parseJsonWithin(bytes('[{}, [], {"é": [1, [{}]]}]'), 10, undefined, 5)).toEqual({ ok: false, position: 19, msg: 'JSON holds more than 5 arrays and objects', tooMany: true });
    // Past the count, the scan stops: nothing after it is looked at.
    expect(scanJson(bytes(`[${'{},'.repeat(10)}[`), 100, 3)).toEqual({ deepAt: -1, tooManyAt: 7, containers: 4 });
  });

  it('leaves text that is not JSON to JSON.parse, with its position', () => {
    expect(parseJsonWithin(bytes('[1, 2'), 4)).toEqual({ ok: false, position: 5, msg: 'JSON decode error' });
    expect(parseJsonWithin(bytes('"unterminated [[['), 1)).toMatchObject({ ok: false, msg: 'JSON decode error' });
    expect(scanJson(bytes(']]]]['), 1).deepAt).toBe(-1);
  });
});

describe('bytes that are not UTF-8', () => {
  it('refuses them where they begin (in characters), never reading them as U+FFFD', () => {
    // Latin-1 é (0xE9) after `{"p":"`: six characters read before it.
    expect(parseJsonWithin(Buffer.from([...Buffer.from('{"p":"'), 0xe9, 0x22, 0x7d]), 10)).toEqual({ ok: false, position: 6, msg: 'JSON decode error: the body is not valid UTF-8' });
    expect(parseJsonWithin(Buffer.from([...Buffer.from('["ü",'), 0xff, 0x5d]), 10)).toMatchObject({ ok: false, position: 5 });
    // U+FFFD sent as UTF-8, or as a JSON escape, is a character like any other.
    expect(parseJsonWithin(bytes('["\\ufffd", "\uFFFD"]'), 10)).toEqual({ ok: true, value: ['\uFFFD', '\uFFFD'], containers: 1 });
  });

  it('ignores a UTF-8 byte order mark, counting it in positions', () => {
    const bom = (text: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    expect(parseJsonWithin(bom('{"a": 1}'), 10)).toEqual({ ok: true, value: { a: 1 }, containers: 1 });
    expect(parseJsonWithin(bom('[1, 2'), 10)).toEqual({ ok: false, position: 6, msg: 'JSON decode error' });
  });

  it('finds the first byte that is not UTF-8: overlong forms, surrogates, past U+10FFFF, a cut sequence', () => {
    for (const [input, valid] of [
      [[0x61, 0xc0, 0x80], 1], // overlong NUL
      [[0x61, 0xe0, 0x80, 0x80], 1], // overlong
      [[0x61, 0xed, 0xa0, 0x80], 1], // a surrogate (U+D800)
      [[0x61, 0xf4, 0x90, 0x80, 0x80], 1], // past U+10FFFF
      [[0x61, 0xe2, 0x82], 1], // cut short
      [[0x61, 0x80], 1], // a lone continuation byte
      [[0x61, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x9a, 0x80], 8], // € and 🚀: all valid
    ] as const) {
      expect(validUtf8Prefix(Uint8Array.from(input))).toBe(valid);
    }
  });

  it('agrees with Node\'s own check on random bytes: the prefix it finds is UTF-8, and one more sequence is not', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    for (let round = 0; round < 2000; round += 1) {
      // Mostly valid text with a few random bytes in it.
      const text = Buffer.from(`ab\u00e9\u20ac\u{1F680}${round}`);
      const bytes = Buffer.concat([text, Uint8Array.from({ length: 4 }, random), text]);
      const valid = validUtf8Prefix(bytes);
      expect(isUtf8(bytes.subarray(0, valid))).toBe(true);
      if (valid < bytes.length) expect([1, 2, 3, 4].some((extra) => valid + extra <= bytes.length && isUtf8(bytes.subarray(0, valid + extra)))).toBe(false);
      else expect(isUtf8(bytes)).toBe(true);
    }
  });
});
