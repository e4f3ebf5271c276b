// The criterion language's parser: tokens into a CriterionAst, refusing what does not parse or names an unknown metric.
import type { ArithmeticOp, ComparisonOp, CriterionAst } from './criterion-ast';
import { UnknownMetricError, syntaxError } from './criterion-errors';
import { describe, tokenize, type Token } from './criterion-tokenizer';

/**
 * The grammar, loosest binding first:
 *
 *   expr    := or
 *   or      := and (('or' | '||') and)*
 *   and     := not (('and' | '&&') not)*
 *   not     := 'not' not | cmp
 *   cmp     := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)?
 *   sum     := product (('+' | '-') product)*
 *   product := unary (('*' | '/') unary)*
 *   unary   := '-' unary | atom
 *   atom    := number | metric | '(' expr ')'
 *
 * A parenthesis holds either a condition or a number; which one is checked after parsing, so
 * `(a + b) / 2 >= 1` and `(a > 1 or b > 2) and c < 3` both read as written. Arithmetic is kept
 * to the four operations a ratio like total_return / max_drawdown needs.
 */

const KEYWORDS = new Set(['and', 'or', 'not']);
const COMPARISONS: readonly string[] = ['<', '<=', '>', '>=', '==', '!='];

function isCondition(node: CriterionAst): boolean {
  return node.type === 'compare' || node.type === 'and' || node.type === 'or' || node.type === 'not';
}

class Parser {
  private at = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly metrics: readonly string[],
  ) {}

  parse(): CriterionAst {
    const ast = this.condition(this.or());
    const next = this.peek();
    if (next.kind !== 'end') {
      throw syntaxError(next.column, `expected "and", "or" or the end of the criterion, found ${describe(next)}`);
    }
    return ast;
  }

  private peek(): Token {
    return this.tokens[this.at];
  }

  private accept(...texts: string[]): Token | undefined {
    const t = this.peek();
    if ((t.kind === 'op' || t.kind === 'name') && texts.includes(t.text)) {
      this.at++;
      return t;
    }
    return undefined;
  }

  /** A node used where a condition is needed: a bare number is the commonest mistake, so say how to fix it. */
  private condition(node: CriterionAst): CriterionAst {
    if (!isCondition(node)) throw syntaxError(node.column, 'a criterion must compare, e.g. sharpe >= 0.5');
    return node;
  }

  private value(node: CriterionAst): CriterionAst {
    if (isCondition(node)) throw syntaxError(node.column, 'expected a number or a metric name, found a condition');
    return node;
  }

  private or(): CriterionAst {
    let left = this.and();
    for (let op = this.accept('or', '||'); op; op = this.accept('or', '||')) {
      left = { type: 'or', left: this.condition(left), right: this.condition(this.and()), column: left.column };
    }
    return left;
  }

  private and(): CriterionAst {
    let left = this.not();
    for (let op = this.accept('and', '&&'); op; op = this.accept('and', '&&')) {
      left = { type: 'and', left: this.condition(left), right: this.condition(this.not()), column: left.column };
    }
    return left;
  }

  private not(): CriterionAst {
    const op = this.accept('not');
    if (op) return { type: 'not', operand: this.condition(this.not()), column: op.column };
    return this.compare();
  }

  private compare(): CriterionAst {
    const left = this.sum();
    const op = this.accept(...COMPARISONS);
    if (!op) return left; // a condition in parentheses, or a bare value the caller refuses
    const right = this.sum();
    return {
      type: 'compare',
      op: op.text as ComparisonOp,
      left: this.value(left),
      right: this.value(right),
      column: left.column,
    };
  }

  private sum(): CriterionAst {
    let left = this.product();
    for (let op = this.accept('+', '-'); op; op = this.accept('+', '-')) {
      const right = this.product();
      left = { type: 'arithmetic', op: op.text as ArithmeticOp, left: this.value(left), right: this.value(right), column: left.column };
    }
    return left;
  }

  private product(): CriterionAst {
    let left = this.unary();
    for (let op = this.accept('*', '/'); op; op = this.accept('*', '/')) {
      const right = this.unary();
      left = { type: 'arithmetic', op: op.text as ArithmeticOp, left: this.value(left), right: this.value(right), column: left.column };
    }
    return left;
  }

  private unary(): CriterionAst {
    const minus = this.accept('-');
    if (minus) return { type: 'negate', operand: this.value(this.unary()), column: minus.column };
    return this.atom();
  }

  private atom(): CriterionAst {
    const t = this.peek();
    if (t.kind === 'number') {
      this.at++;
      return { type: 'number', value: t.value, column: t.column };
    }
    if (t.kind === 'name' && !KEYWORDS.has(t.text)) {
      this.at++;
      if (!this.metrics.includes(t.text)) throw new UnknownMetricError(t.text, t.column, this.metrics);
      return { type: 'metric', name: t.text, column: t.column };
    }
    if (this.accept('(')) {
      const inner = this.or();
      const close = this.peek();
      if (!this.accept(')')) throw syntaxError(close.column, `expected ")" to close the "(" at column ${t.column}, found ${describe(close)}`);
      return inner;
    }
    throw syntaxError(t.column, `expected a number or a metric name, found ${describe(t)}`);
  }
}

/**
 * The criterion's syntax tree. Throws CriterionSyntaxError (the message names the column) when
 * the text does not parse, and UnknownMetricError when it names a metric not in `metrics`.
 */
export function parseCriterion(text: string, metrics: readonly string[]): CriterionAst {
  return new Parser(tokenize(text), metrics).parse();
}
