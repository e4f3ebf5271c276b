import type { BuildRunState } from './build-types';

/** A criticism the debate did not settle: the reviser rejected or deferred it, or it was still open at the round limit. */
export interface UnresolvedCriticism {
  /** Where the position was taken: the revision that answered it, or the critique left open. */
  source: string;
  problem: string;
  action: 'rejected' | 'deferred' | 'open at the round limit';
  reason: string | null;
}

/**
 * Seed §6: every REVISE/REJECT problem the reviser marked rejected or deferred is an unresolved
 * disagreement, whatever a later critique said. Computed from the records, so the report can
 * list them even when the synthesizer forgot one.
 */
export function unresolvedCriticisms(state: Pick<BuildRunState, 'proposals' | 'critiques' | 'unresolved'>): UnresolvedCriticism[] {
  const out: UnresolvedCriticism[] = [];
  for (const p of state.proposals) {
    for (const r of p.body.responses_to_criticism ?? []) {
      if (r.action === 'rejected' || r.action === 'deferred') {
        out.push({ source: p.label, problem: r.problem, action: r.action, reason: r.reason });
      }
    }
  }
  if (state.unresolved) {
    const last = [...state.critiques].reverse().find((c) => c.targetKind === 'proposal');
    for (const problem of last?.body.problems ?? []) {
      out.push({ source: last!.label, problem: `${problem.severity}: ${problem.description}`, action: 'open at the round limit', reason: null });
    }
  }
  return out;
}
