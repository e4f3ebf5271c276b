import { MissingPlaceholderError, renderTemplate, templatePlaceholders } from './prompt-render';

describe('renderTemplate', () => {
  it('replaces every placeholder, repeated ones included', () => {
    expect(renderTemplate('{{a}} and {{ b }} and {{a}}', { a: 'x', b: 'y' })).toBe('x and y and x');
  });

  it('throws naming each missing placeholder', () => {
    expect(() => renderTemplate('{{objective}} {{schema}}', { objective: 'o' })).toThrow(MissingPlaceholderError);
    expect(() => renderTemplate('{{objective}} {{schema}}', { objective: 'o' })).toThrow('{{schema}}');
  });

  it('accepts an empty string as a value and ignores unused values', () => {
    expect(renderTemplate('[{{a}}]', { a: '', extra: 'z' })).toBe('[]');
  });

  it('never expands placeholders that arrive inside a value', () => {
    expect(renderTemplate('{{proposal}}', { proposal: 'see {{schema}}', schema: 'SECRET' })).toBe('see {{schema}}');
  });

  it('does not treat $ patterns in values specially', () => {
    expect(renderTemplate('{{a}}', { a: "$& $1 $'" })).toBe("$& $1 $'");
  });
});

describe('templatePlaceholders', () => {
  it('lists distinct names in order of first use', () => {
    expect(templatePlaceholders('{{b}} {{a}} {{b}} {{ c }} {x}')).toEqual(['b', 'a', 'c']);
  });
});
