// The criterion language's formatter: a parsed criterion back into canonical text.
import type { CriterionAst } from './criterion-ast';

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
