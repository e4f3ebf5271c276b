import { findJsonSyntaxError, findYamlSyntaxError, formatSyntaxError, lineColumnOf } from './syntax-error';

const at = (e: ReturnType<typeof findJsonSyntaxError>) => (e ? formatSyntaxError(e) : null);

describe('syntax errors as line and column (issue 22)', () => {
  it('counts lines and columns from 1', () => {
    expect(lineColumnOf('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumnOf('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });

  it('YAML: an unclosed flow collection is reported where it was opened, once', () => {
    expect(at(findYamlSyntaxError('a: 1\nb: [1, 2\nc: 3\n'))).toBe('line 2, column 4: this "[" is never closed: a "]" is missing before line 3, column 1');
    expect(at(findYamlSyntaxError('a: {b: 1\n'))).toBe('line 1, column 4: this "{" is never closed: a "}" is missing before the end of the file');
  });

  it('YAML: other errors keep the parser words without its position and snippet', () => {
    const e = findYamlSyntaxError('a: 1\na: 2\n');
    expect(e).toMatchObject({ line: 2, column: 1 });
    expect(e?.message).not.toMatch(/line|\n/);
    expect(findYamlSyntaxError('a: 1\n')).toBeNull();
  });

  it('JSON: converts the failure to a line and column, whatever JSON.parse says', () => {
    const json = ['{', '  "project": "dd-demo",', '  "requirements": ["r"]', '  "objective": "o"', '}'].join('\n');
    expect(at(findJsonSyntaxError(json))).toBe('line 4, column 3: expected "," or "}", found "\\""');
    expect(at(findJsonSyntaxError('{"a": {"b": 1}, "c": tru}'))).toMatch(/^line 1, column 22: expected a value/);
    expect(at(findJsonSyntaxError('{"a" 1}'))).toBe('line 1, column 6: expected ":" after the property name, found "1"');
    expect(at(findJsonSyntaxError('[1, 2] x'))).toBe('line 1, column 8: expected nothing more after the JSON value, found "x"');
    expect(at(findJsonSyntaxError('{"project": "dd-demo",\n  "budget": {"max_calls": 3\n'))).toBe(
      'line 2, column 13: this "{" is never closed: a "}" is missing before the end of the text',
    );
    expect(findJsonSyntaxError('{"a": [1, "x\\u00e9", {"b": null, "c": -1.5e3}]}')).toBeNull();
  });
});
