// The criterion language's errors: text that does not parse, an unknown metric, a value that cannot be evaluated.

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

/** A CriterionSyntaxError whose message starts with the column. */
export function syntaxError(column: number, what: string): CriterionSyntaxError {
  return new CriterionSyntaxError(column, `column ${column}: ${what}`);
}
