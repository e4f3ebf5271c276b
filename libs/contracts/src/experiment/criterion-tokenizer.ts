// The criterion language's tokenizer: criterion text into numbers, metric names and operators, each with its column.
import { syntaxError } from './criterion-errors';

export type Token =
  | { kind: 'number'; text: string; value: number; column: number }
  | { kind: 'name'; text: string; column: number }
  | { kind: 'op'; text: string; column: number }
  | { kind: 'end'; text: ''; column: number };

const METRIC_NAME = /^[a-z_][a-z0-9_]*$/;
// Longest first, so "<=" is not read as "<" then "=".
const OPERATORS = ['<=', '>=', '==', '!=', '&&', '||', '<', '>', '(', ')', '+', '-', '*', '/'];

export function describe(token: Token): string {
  return token.kind === 'end' ? 'the end of the criterion' : JSON.stringify(token.text);
}

export function tokenize(text: string): Token[] {
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
