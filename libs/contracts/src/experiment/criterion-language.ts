/**
 * The language a preregistration's success and failure criteria are written in: comparisons over
 * the metrics the method names, joined by and / or / not. Our own parser and evaluator, never
 * eval or Function: a criterion is text an agent or a user wrote, and the decision it feeds is
 * computed by code, so it must mean exactly one thing and run nothing.
 *
 * This module is the language's public face; each part lives in its own file: the tree
 * (criterion-ast), the errors (criterion-errors), the tokenizer and parser (criterion-tokenizer,
 * criterion-parser, where the grammar is written down), the evaluator and the formatter.
 */

export type { ArithmeticOp, ComparisonOp, CriterionAst } from './criterion-ast';
export { hasThreshold, metricsIn } from './criterion-ast';
export { CriterionEvaluationError, CriterionSyntaxError, UnknownMetricError } from './criterion-errors';
export { parseCriterion } from './criterion-parser';
export { evaluateCriterion } from './criterion-evaluate';
export { formatCriterion } from './criterion-format';
