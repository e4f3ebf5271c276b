// The criterion language's syntax tree (every node with its column) and the questions asked of a whole tree.

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
