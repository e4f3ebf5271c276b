import type { WorkflowGraph } from '@roundtable/contracts';

/**
 * The build's shape (seed §8), for the run page's stage graph: propose, critique and revise
 * until a critique accepts (at most budget.max_rounds), the criteria gate, implement, test and
 * fix until the tests pass (at most budget.max_fix_rounds), review, synthesize, the merge gate.
 * Every stage can halt; the graph shows HALTED once, beside the end.
 */
export const BUILD_GRAPH: WorkflowGraph = {
  nodes: [
    { id: 'INIT', label: 'Prepare the workspace', kind: 'start' },
    { id: 'PROPOSE', label: 'Propose', kind: 'stage' },
    { id: 'CRITIQUE', label: 'Critique', kind: 'stage' },
    { id: 'REVISE', label: 'Revise', kind: 'stage' },
    { id: 'IMPLEMENT', label: 'Implement', kind: 'stage' },
    { id: 'TEST', label: 'Test', kind: 'stage' },
    { id: 'FIX', label: 'Fix', kind: 'stage' },
    { id: 'REVIEW', label: 'Review', kind: 'stage' },
    { id: 'SYNTHESIZE', label: 'Synthesize', kind: 'stage' },
    { id: 'MERGE', label: 'Merge (gate)', kind: 'gate' },
    { id: 'DONE', label: 'Done', kind: 'end' },
    { id: 'HALTED', label: 'Halted', kind: 'halt' },
  ],
  edges: [
    { from: 'INIT', to: 'PROPOSE' },
    { from: 'PROPOSE', to: 'CRITIQUE' },
    { from: 'CRITIQUE', to: 'REVISE', label: 'REVISE', loop: 'budget.max_rounds' },
    { from: 'REVISE', to: 'CRITIQUE' },
    { from: 'CRITIQUE', to: 'IMPLEMENT', label: 'ACCEPT (criteria gate)' },
    { from: 'IMPLEMENT', to: 'TEST' },
    { from: 'TEST', to: 'FIX', label: 'failed', loop: 'budget.max_fix_rounds' },
    { from: 'FIX', to: 'TEST' },
    { from: 'TEST', to: 'REVIEW', label: 'passed' },
    { from: 'REVIEW', to: 'SYNTHESIZE' },
    { from: 'SYNTHESIZE', to: 'MERGE', label: 'merge gate or autonomy 3' },
    { from: 'SYNTHESIZE', to: 'DONE' },
    { from: 'MERGE', to: 'DONE' },
    { from: 'SYNTHESIZE', to: 'HALTED', label: 'a halt (partial synthesis)' },
  ],
};
