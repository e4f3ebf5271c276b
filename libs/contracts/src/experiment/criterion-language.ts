/**
 * The language a preregistration's success and failure criteria are written in: comparisons over
 * the metrics the method names, joined by and / or / not. Our own parser and evaluator, never
 * eval or Function: a criterion is text an agent or a user wrote, and the decision it feeds is
 * computed by code, so it must mean exactly one thing and run nothing.
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

export type ComparisonOp = '<' | '<=' | '>' | '>=' | '==' | '!=';
export type ArithmeticOp = '+' | '-' | '*' | '/';

/** Every node carries the 1-based column it starts at, so errors can point into the text. */
export type CriterionAst =
  | { type: 'number'; value: number; column: number }
  | { type: 'metric'; name: string; column: number }
  | { type: 'negate'; operand: CriterionAst; column: number }
  | { type: 'arithmetic'; op: ArithmeticOp; left: CriterionAst; right: CriterionAst; column: number }
  | { type: 'compare'; op: ComparisonOp; left: CriterionAst; right: CriterionAst; column: number }
  | { type: 'and' | 'or'; left: CriterionAst; right: CriterionAst; column: number }
  | { type: 'not'; operand: CriterionAst; column: number };

/** A criterion that does not parse; the message starts with the column, counted from 1. */
export class CriterionSyntaxError extends Error {
  constructor(
    readonly column: number,
    message: string,
  ) {
    super(message);
    this.name = 'CriterionSyntaxError';
  }
}

/** A criterion naming a metric the method does not produce (a typo, most often). */
export class UnknownMetricError extends CriterionSyntaxError {
  constructor(
    readonly metric: string,
    column: number,
    known: readonly string[],
  ) {
    const produces = known.length ? `the method produces: ${known.join(', ')}` : 'the method names no metrics';
    super(column, `unknown metric "${metric}" at column ${column} (${produces})`);
    this.name = 'UnknownMetricError';
  }
}

/** A criterion that parsed but cannot be evaluated on these values (a missing metric, a zero divisor). */
export class CriterionEvaluationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CriterionEvaluationError';
  }
}

type Token =
  | { kind: 'number'; text: string; value: number; column: number }
  | { kind: 'name'; text: string; column: number }
  | { kind: 'op'; text: string; column: number }
  | { kind: 'end'; text: ''; column: number };

const KEYWORDS = new Set(['and', 'or', 'not']);
const METRIC_NAME = /^[a-z_][a-z0-9_]*$/;
const COMPARISONS: readonly string[] = ['<', '<=', '>', '>=', '==', '!='];
// Longest first, so "<=" is not read as "<" then "=".
const OPERATORS = ['<=', '>=', '==', '!=', '&&', '||', '<', '>', '(', ')', '+', '-', '*', '/'];

function syntaxError(column: number, what: string): CriterionSyntaxError {
  return new CriterionSyntaxError(column, `column ${column}: ${what}`);
}

function describe(token: Token): string {
  return token.kind === 'end' ? 'the end of the criterion' : JSON.stringify(token.text);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    const column = i + 1;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const number = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (number) {
      const after = text[i + number[0].length];
      if (after !== undefined && /[A-Za-z0-9_.]/.test(after)) {
        throw syntaxError(column, `malformed number ${JSON.stringify(text.slice(i, i + number[0].length + 1))}`);
      }
      const value = Number(number[0]);
      if (!Number.isFinite(value)) throw syntaxError(column, `number ${number[0]} is too large`);
      tokens.push({ kind: 'number', text: number[0], value, column });
      i += number[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (name) {
      if (!METRIC_NAME.test(name[0])) {
        throw syntaxError(column, `"${name[0]}" is not a metric name: metric names are lowercase letters, digits and _`);
      }
      tokens.push({ kind: 'name', text: name[0], column });
      i += name[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (op) {
      tokens.push({ kind: 'op', text: op, column });
      i += op.length;
      continue;
    }
    if (ch === '=') throw syntaxError(column, '"=" is not an operator; compare with ==');
    throw syntaxError(column, `unexpected character ${JSON.stringify(ch)}`);
  }
  tokens.push({ kind: 'end', text: '', column: text.length + 1 });
  return tokens;
}

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

/** The metrics a criterion reads, each once, in the order they first appear. */
export function metricsIn(ast: CriterionAst): string[] {
  const names: string[] = [];
  walk(ast, (n) => {
    if (n.type === 'metric' && !names.includes(n.name)) names.push(n.name);
  });
  return names;
}

/**
 * Whether the criterion names a number anywhere. One that only compares metrics with each other
 * (sharpe_oos > sharpe_is) sets no threshold, so almost any result can be read as meeting it.
 */
export function hasThreshold(ast: CriterionAst): boolean {
  let found = false;
  walk(ast, (n) => {
    if (n.type === 'number') found = true;
  });
  return found;
}

function walk(ast: CriterionAst, visit: (n: CriterionAst) => void): void {
  visit(ast);
  if (ast.type === 'negate' || ast.type === 'not') walk(ast.operand, visit);
  else if (ast.type !== 'number' && ast.type !== 'metric') {
    walk(ast.left, visit);
    walk(ast.right, visit);
  }
}

/** Whether the criterion holds for these metric values. A missing value or a zero divisor throws, naming it. */
export function evaluateCriterion(ast: CriterionAst, values: Record<string, number>): boolean {
  return condition(ast, values);
}

function condition(ast: CriterionAst, values: Record<string, number>): boolean {
  switch (ast.type) {
    case 'and':
      return condition(ast.left, values) && condition(ast.right, values);
    case 'or':
      return condition(ast.left, values) || condition(ast.right, values);
    case 'not':
      return !condition(ast.operand, values);
    case 'compare': {
      const l = value(ast.left, values);
      const r = value(ast.right, values);
      switch (ast.op) {
        case '<':
          return l < r;
        case '<=':
          return l <= r;
        case '>':
          return l > r;
        case '>=':
          return l >= r;
        case '==':
          return l === r;
        case '!=':
          return l !== r;
      }
    }
    // falls through: a value where a condition is needed cannot come out of parseCriterion
    default:
      throw new CriterionEvaluationError(`column ${ast.column}: a value is not a condition`);
  }
}

function value(ast: CriterionAst, values: Record<string, number>): number {
  switch (ast.type) {
    case 'number':
      return ast.value;
    case 'metric': {
      const v = Object.prototype.hasOwnProperty.call(values, ast.name) ? values[ast.name] : undefined;
      if (typeof v !== 'number' || !Number.isFinite(v)) {
        throw new CriterionEvaluationError(`no numeric value for metric "${ast.name}"`);
      }
      return v;
    }
    case 'negate':
      return -value(ast.operand, values);
    case 'arithmetic': {
      const l = value(ast.left, values);
      const r = value(ast.right, values);
      if (ast.op === '+') return l + r;
      if (ast.op === '-') return l - r;
      if (ast.op === '*') return l * r;
      // A zero divisor would make Infinity or NaN and a silent verdict; say so instead.
      if (r === 0) throw new CriterionEvaluationError(`column ${ast.right.column}: division by zero`);
      return l / r;
    }
    default:
      throw new CriterionEvaluationError(`column ${ast.column}: a condition is not a number`);
  }
}

// Binding strength, loosest first: parentheses go in only where the tree needs them.
const STRENGTH: Record<string, number> = { or: 1, and: 2, not: 3, compare: 4, '+': 5, '-': 5, '*': 6, '/': 6, negate: 7 };

function strength(ast: CriterionAst): number {
  if (ast.type === 'arithmetic') return STRENGTH[ast.op];
  return STRENGTH[ast.type] ?? 8;
}

/** The criterion as text, spaced one way and parenthesised only where needed (for reports and prompts). */
export function formatCriterion(ast: CriterionAst): string {
  const wrap = (child: CriterionAst, min: number) => (strength(child) < min ? `(${formatCriterion(child)})` : formatCriterion(child));
  switch (ast.type) {
    case 'number':
      return String(ast.value);
    case 'metric':
      return ast.name;
    case 'negate':
      return `-${wrap(ast.operand, STRENGTH.negate)}`;
    case 'not':
      return `not ${wrap(ast.operand, STRENGTH.not)}`;
    case 'and':
    case 'or':
    case 'compare':
    case 'arithmetic': {
      const s = strength(ast);
      const op = ast.type === 'compare' || ast.type === 'arithmetic' ? ast.op : ast.type;
      // Left-associative: a right child as strong as this node still needs parentheses (a - (b - c)).
      // Comparisons do not chain, so both sides must bind tighter.
      const leftMin = ast.type === 'compare' ? s + 1 : s;
      return `${wrap(ast.left, leftMin)} ${op} ${wrap(ast.right, s + 1)}`;
    }
  }
}
