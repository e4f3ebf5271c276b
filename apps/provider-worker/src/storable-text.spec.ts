import { storableJson, storableText } from './storable-text';

describe('storableText', () => {
  it('escapes NUL and lone surrogates as 6-character \\uXXXX text, and says so', () => {
    expect(storableText('a\u0000b')).toEqual({ value: 'a\\u0000b', escaped: true });
    expect(storableText('x\uD800y')).toEqual({ value: 'x\\ud800y', escaped: true });
    expect(storableText('x\uDC01')).toEqual({ value: 'x\\udc01', escaped: true });
  });

  it('leaves everything else as received: surrogate pairs, control characters, backslashes', () => {
    for (const s of ['plain', 'emoji \uD83D\uDE00 pair', 'tab\tand\u0001', 'a literal \\u0000 already']) expect(storableText(s)).toEqual({ value: s, escaped: false });
  });
});

describe('storableJson', () => {
  it('walks strings, keys and arrays; untouched values come back as the same object', () => {
    expect(storableJson({ 'k\u0000': ['a', { b: 'c\u0000' }], n: 1, z: null })).toEqual({ value: { 'k\\u0000': ['a', { b: 'c\\u0000' }], n: 1, z: null }, escaped: true });
    const clean = { a: ['b'], c: 2 };
    expect(storableJson(clean).value).toBe(clean);
    expect(storableJson(clean).escaped).toBe(false);
  });
});
