import type { AcceptanceCriterion } from './build/build-types';

/**
 * The locked acceptance criteria with the repeats folded in, for the report. The lock de-duplicates exact
 * texts only, and a critic that accepts often restates the proposal's tests with a different note: the demo's
 * C2 gives "[0, 1, 2] -> 0.0" where P2 had "[0, 1, 2] -> 0.0 and [-5, -3, -1] -> 0.0 (monotone …)", so
 * AC8–AC10 repeated AC4–AC6. The lock itself is left alone (the prompts quote its ids); the report lists
 * each case once and names the ids that repeat it.
 */
export interface FoldedCriterion extends AcceptanceCriterion {
  /** Ids of later criteria that state the same case. */
  repeatedBy: string[];
}

/** The case a criterion states: its text without trailing parenthetical notes, spacing and case folded. */
const caseOf = (text: string): string =>
  text
    .replace(/(\s*\([^()]*\))+\s*$/, '')
    .trim()
    .replace(/\s+/g, ' ')
    .toLowerCase();

/** The clauses of a criterion ("A and B" states A and B), each as a case. */
const clausesOf = (text: string): string[] => [caseOf(text), ...caseOf(text).split(/\s+and\s+/).map((c) => c.trim())].filter(Boolean);

export function foldRepeatedCriteria(criteria: readonly AcceptanceCriterion[]): FoldedCriterion[] {
  const kept: { criterion: FoldedCriterion; clauses: Set<string> }[] = [];
  for (const c of criteria) {
    const own = caseOf(c.text);
    const earlier = own ? kept.find((k) => k.clauses.has(own)) : undefined;
    if (earlier) earlier.criterion.repeatedBy.push(c.id);
    else kept.push({ criterion: { ...c, repeatedBy: [] }, clauses: new Set(clausesOf(c.text)) });
  }
  return kept.map((k) => k.criterion);
}
