import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { jsonTooDeep, MAX_BODY_DEPTH, yamlTooDeep } from './body-depth';

const nestedJson = (n: number) => Buffer.from(`${'['.repeat(n)}${']'.repeat(n)}`);

describe('jsonTooDeep', () => {
  it('allows MAX_BODY_DEPTH levels and refuses one more, with the line', () => {
    expect(jsonTooDeep(nestedJson(MAX_BODY_DEPTH))).toBeNull();
    expect(jsonTooDeep(nestedJson(MAX_BODY_DEPTH + 1))).toEqual({ line: 1 });
    expect(jsonTooDeep(Buffer.from(`{\n"a":\n${'{"b":'.repeat(70)}1${'}'.repeat(70)}}`))).toEqual({ line: 3 });
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(jsonTooDeep(Buffer.from(`{"a": "${'[{\\"'.repeat(1000)}"}`))).toBeNull();
  });

  it('measures 200,000 levels without a stack', () => {
    expect(jsonTooDeep(nestedJson(200_000))).toEqual({ line: 1 });
  });
});

describe('yamlTooDeep', () => {
  it('passes the example projects with room to spare', () => {
    for (const name of ['dd-demo', 'panel-demo', 'mixed-team', 'anthropic-only']) {
      const text = readFileSync(join(__dirname, '../../../examples', name, 'project.yaml'), 'utf8');
      expect(yamlTooDeep(text, 10)).toBeNull();
    }
  });

  // Indentation costs n²/2 bytes for n levels, so 2,000 is already past what a 1mb body can hold.
  it.each([
    ['flow sequences', (n: number) => `a: ${'['.repeat(n)}${']'.repeat(n)}`, 200_000],
    ['flow mappings', (n: number) => `a: ${'{b: '.repeat(n)}1${'}'.repeat(n)}`, 200_000],
    ['compact block sequences', (n: number) => `a:\n  ${'- '.repeat(n)}x`, 200_000],
    ['explicit keys', (n: number) => `${'? '.repeat(n)}x`, 200_000],
    ['indented mappings', (n: number) => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' 1', 2000],
  ])('refuses %s one past the limit and far past it', (_what, make, far) => {
    expect(yamlTooDeep(make(MAX_BODY_DEPTH - 8))).toBeNull();
    expect(yamlTooDeep(make(MAX_BODY_DEPTH + 1))).not.toBeNull();
    expect(yamlTooDeep(make(far))).not.toBeNull();
  });

  it('does not count brackets in quoted or block scalars, or comments', () => {
    const text = `a: "${'['.repeat(500)}"\nb: '${'{'.repeat(500)}'\nc: |\n  ${'[ '.repeat(500)}\n# ${'['.repeat(500)}\n`;
    expect(yamlTooDeep(text)).toBeNull();
    expect(parseYaml(text).a).toHaveLength(500);
  });

  it('gives the line of the first level past the limit', () => {
    expect(yamlTooDeep(`a: 1\nb: 2\nc: ${'['.repeat(100)}`)).toEqual({ line: 3 });
  });
});
