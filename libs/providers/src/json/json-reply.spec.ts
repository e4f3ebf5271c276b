import { parseJsonReply } from './json-reply';

describe('parseJsonReply', () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ['  {"a":1}\n', { a: 1 }],
    ['```json\n{"a":1}\n```', { a: 1 }],
    ['Here it is: {"a":{"b":2}} hope that helps', { a: { b: 2 } }],
  ])('reads %j', (text, expected) => {
    expect(parseJsonReply(text)).toEqual(expected);
  });

  it.each([[''], ['   '], ['{"a": 1'], ['42'], ['"a string"'], [null], [undefined], ['no json at all']])('gives null for %j', (text) => {
    expect(parseJsonReply(text)).toBeNull();
  });
});
