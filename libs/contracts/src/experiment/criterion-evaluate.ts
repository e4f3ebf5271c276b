// The criterion language's evaluator: whether a parsed criterion holds for a set of metric values.
import type { CriterionAst } from './criterion-ast';
import { CriterionEvaluationError } from './criterion-errors';

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
