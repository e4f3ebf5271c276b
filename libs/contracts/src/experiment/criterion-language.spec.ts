import {
  CriterionEvaluationError,
  CriterionSyntaxError,
  UnknownMetricError,
  evaluateCriterion,
  formatCriterion,
  hasThreshold,
  metricsIn,
  parseCriterion,
} from './criterion-language';

const METRICS = ['sharpe', 'max_drawdown', 'n_trades', 'total_return'];
const parse = (text: string) => parseCriterion(text, METRICS);
const holds = (text: string, values: Record<string, number>) => evaluateCriterion(parse(text), values);

function syntaxErrorOf(text: string): CriterionSyntaxError {
  try {
    parse(text);
  } catch (e) {
    expect(e).toBeInstanceOf(CriterionSyntaxError);
    return e as CriterionSyntaxError;
  }
  throw new Error(`expected ${JSON.stringify(text)} not to parse`);
}

describe('parseCriterion: precedence and grouping', () => {
  it('binds and tighter than or', () => {
    expect(formatCriterion(parse('sharpe > 1 or n_trades > 10 and max_drawdown < 0.2'))).toBe(
      'sharpe > 1 or n_trades > 10 and max_drawdown < 0.2',
    );
    const ast = parse('sharpe > 1 or n_trades > 10 and max_drawdown < 0.2');
    expect(ast.type).toBe('or');
    // or(sharpe>1, and(...)): true when only the left holds
    expect(holds('sharpe > 1 or n_trades > 10 and max_drawdown < 0.2', { sharpe: 2, n_trades: 0, max_drawdown: 1 })).toBe(true);
    expect(holds('sharpe > 1 and n_trades > 10 or max_drawdown < 0.2', { sharpe: 0, n_trades: 0, max_drawdown: 0.1 })).toBe(true);
  });

  it('lets parentheses regroup', () => {
    const text = '(sharpe > 1 or n_trades > 10) and max_drawdown < 0.2';
    expect(parse(text).type).toBe('and');
    expect(formatCriterion(parse(text))).toBe(text);
    expect(holds(text, { sharpe: 2, n_trades: 0, max_drawdown: 1 })).toBe(false);
    expect(holds(text, { sharpe: 2, n_trades: 0, max_drawdown: 0.1 })).toBe(true);
  });

  it('reads not, and not not', () => {
    expect(holds('not sharpe > 1', { sharpe: 0.5 })).toBe(true);
    expect(holds('not not sharpe > 1', { sharpe: 0.5 })).toBe(false);
    expect(holds('not (sharpe > 1 or n_trades > 5)', { sharpe: 0, n_trades: 3 })).toBe(true);
    // not binds tighter than and
    expect(parse('not sharpe > 1 and n_trades > 5').type).toBe('and');
  });

  it('accepts && and || as and and or', () => {
    expect(formatCriterion(parse('sharpe > 1 || n_trades > 10 && max_drawdown < 0.2'))).toBe('sharpe > 1 or n_trades > 10 and max_drawdown < 0.2');
    expect(parse('sharpe > 1 || n_trades > 10 && max_drawdown < 0.2').type).toBe('or');
  });

  it('groups values in parentheses too, with * and / tighter than + and -', () => {
    expect(holds('(total_return - 0.1) / max_drawdown >= 2', { total_return: 0.5, max_drawdown: 0.2 })).toBe(true);
    expect(holds('total_return - 0.1 / max_drawdown >= 0', { total_return: 0.5, max_drawdown: 0.2 })).toBe(true);
    expect(holds('total_return - 0.1 / max_drawdown >= 0', { total_return: 0.4, max_drawdown: 0.2 })).toBe(false);
    expect(holds('total_return - max_drawdown - 0.1 > 0', { total_return: 0.5, max_drawdown: 0.2 })).toBe(true); // (0.5-0.2)-0.1
    expect(holds('2 * sharpe + 1 == 5', { sharpe: 2 })).toBe(true);
  });
});

describe('parseCriterion: numbers', () => {
  it.each([
    ['max_drawdown > -0.25', { max_drawdown: -0.2 }, true],
    ['max_drawdown > -0.25', { max_drawdown: -0.3 }, false],
    ['sharpe >= - 1', { sharpe: -1 }, true],
    ['sharpe > 1e-3', { sharpe: 0.002 }, true],
    ['sharpe > 1e-3', { sharpe: 0.0005 }, false],
    ['n_trades >= 2.5E2', { n_trades: 250 }, true],
    ['sharpe > .5', { sharpe: 0.6 }, true],
    ['n_trades >= 30', { n_trades: 30 }, true],
  ])('%s with %j is %s', (text, values, expected) => {
    expect(holds(text, values)).toBe(expected);
  });
});

describe('evaluateCriterion: every comparison', () => {
  it.each([
    ['<', 1, 2, true],
    ['<', 2, 2, false],
    ['<=', 2, 2, true],
    ['<=', 3, 2, false],
    ['>', 3, 2, true],
    ['>', 2, 2, false],
    ['>=', 2, 2, true],
    ['>=', 1, 2, false],
    ['==', 2, 2, true],
    ['==', 1, 2, false],
    ['!=', 1, 2, true],
    ['!=', 2, 2, false],
  ])('sharpe %s 2 with sharpe = %d is %s', (op, sharpe, _two, expected) => {
    expect(holds(`sharpe ${op} 2`, { sharpe })).toBe(expected);
  });

  it('throws naming a metric that has no value', () => {
    expect(() => holds('sharpe > 1 and n_trades > 10', { sharpe: 2 })).toThrow(CriterionEvaluationError);
    expect(() => holds('sharpe > 1 and n_trades > 10', { sharpe: 2 })).toThrow('no numeric value for metric "n_trades"');
  });

  it('stops at the first condition that settles it, so an unread metric need not be there', () => {
    expect(holds('sharpe > 1 or n_trades > 10', { sharpe: 2 })).toBe(true);
  });

  it('throws on a zero divisor instead of comparing Infinity or NaN', () => {
    expect(() => holds('total_return / max_drawdown > 1', { total_return: 1, max_drawdown: 0 })).toThrow('column 16: division by zero');
  });
});

describe('parseCriterion: syntax errors name the column', () => {
  it.each([
    ['sharpe >= 0.5 )', 15, 'expected "and", "or" or the end of the criterion, found ")"'],
    ['sharpe >= 0.5 0.7', 15, 'expected "and", "or" or the end of the criterion, found "0.7"'],
    ['sharpe >= ', 11, 'expected a number or a metric name, found the end of the criterion'],
    ['(sharpe >= ) and n_trades > 1', 12, 'expected a number or a metric name, found ")"'],
    ['sharpe > 1 and', 15, 'expected a number or a metric name, found the end of the criterion'],
    ['(sharpe > 1 or n_trades > 2', 28, 'expected ")" to close the "(" at column 1, found the end of the criterion'],
    ['sharpe > 1 $ 2', 12, 'unexpected character "$"'],
    ['sharpe = 1', 8, '"=" is not an operator; compare with =='],
    ['Sharpe > 1', 1, '"Sharpe" is not a metric name'],
    ['sharpe > 1.5.2', 10, 'malformed number "1.5."'],
    ['sharpe > 3x', 10, 'malformed number "3x"'],
    ['sharpe', 1, 'a criterion must compare, e.g. sharpe >= 0.5'],
    ['sharpe + 1', 1, 'a criterion must compare, e.g. sharpe >= 0.5'],
    ['n_trades > 1 and sharpe', 18, 'a criterion must compare, e.g. sharpe >= 0.5'],
    ['not sharpe', 5, 'a criterion must compare, e.g. sharpe >= 0.5'],
    ['(sharpe > 1) > 0', 2, 'expected a number or a metric name, found a condition'],
    ['sharpe < 1 < 2', 12, 'expected "and", "or" or the end of the criterion, found "<"'],
    ['', 1, 'expected a number or a metric name, found the end of the criterion'],
  ])('%j: column %d', (text, column, message) => {
    const e = syntaxErrorOf(text);
    expect(e.column).toBe(column);
    expect(e.message).toBe(`column ${column}: ${message}`.replace(/(is not a metric name)$/, '$1: metric names are lowercase letters, digits and _'));
  });
});

describe('parseCriterion: unknown metrics', () => {
  it('refuses a metric the method does not produce, naming it, its column and the known ones', () => {
    expect(() => parseCriterion('sharp >= 0.5', ['sharpe', 'max_drawdown'])).toThrow(
      'unknown metric "sharp" at column 1 (the method produces: sharpe, max_drawdown)',
    );
    try {
      parseCriterion('sharpe > 1 and drawdown < 0.2', ['sharpe', 'max_drawdown']);
      throw new Error('expected a throw');
    } catch (e) {
      expect(e).toBeInstanceOf(UnknownMetricError);
      expect(e).toBeInstanceOf(CriterionSyntaxError);
      expect((e as UnknownMetricError).metric).toBe('drawdown');
      expect((e as UnknownMetricError).column).toBe(16);
    }
  });

  it('refuses the reserved words as metric names', () => {
    expect(() => parseCriterion('and > 1', ['and'])).toThrow('column 1: expected a number or a metric name, found "and"');
  });
});

describe('metricsIn, hasThreshold, formatCriterion', () => {
  it('lists each metric once in order of appearance', () => {
    expect(metricsIn(parse('n_trades > 30 and (sharpe > 1 or sharpe / max_drawdown > 2)'))).toEqual(['n_trades', 'sharpe', 'max_drawdown']);
  });

  it('sees a threshold only where a number is written', () => {
    expect(hasThreshold(parse('sharpe > max_drawdown'))).toBe(false);
    expect(hasThreshold(parse('sharpe > max_drawdown and n_trades > total_return'))).toBe(false);
    expect(hasThreshold(parse('sharpe > max_drawdown and n_trades > 30'))).toBe(true);
    expect(hasThreshold(parse('sharpe > 2 * max_drawdown'))).toBe(true);
  });

  it('formats with parentheses only where the tree needs them, and reparses to the same meaning', () => {
    for (const text of [
      'not (sharpe > 1 and n_trades > 2)',
      'sharpe - (max_drawdown - 1) > 0',
      'sharpe / (max_drawdown * 2) > 0',
      '-(sharpe + 1) < 0',
      'not not sharpe > 1',
      'sharpe > 1 or n_trades > 2 or total_return > 0',
    ]) {
      expect(formatCriterion(parse(text))).toBe(text);
    }
    expect(formatCriterion(parse('((sharpe))>=(1e-3)&&n_trades>1'))).toBe('sharpe >= 0.001 and n_trades > 1');
  });
});
