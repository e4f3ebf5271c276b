import type { WorkflowGraph } from '@roundtable/contracts';

/**
 * The panel's shape (seed 003), for the run page's stage graph: five judges score in parallel,
 * debate in fixed order, re-vote, and the moderator decides; an appeal re-scores named judges
 * after the end.
 */
export const PANEL_GRAPH: WorkflowGraph = {
  nodes: [
    { id: 'INIT', label: 'Start', kind: 'start' },
    { id: 'ROAST', label: 'Judges score (parallel)', kind: 'stage' },
    { id: 'DEBATE', label: 'Debate (fixed order)', kind: 'stage' },
    { id: 'REVOTE', label: 'Re-vote', kind: 'stage' },
    { id: 'MODERATE', label: 'Moderator: GO / ITERATE / NO-GO', kind: 'stage' },
    { id: 'DONE', label: 'Done', kind: 'end' },
    { id: 'APPEAL', label: 'Appeal (once, after the end)', kind: 'stage' },
    { id: 'HALTED', label: 'Halted', kind: 'halt' },
  ],
  edges: [
    { from: 'INIT', to: 'ROAST' },
    { from: 'ROAST', to: 'DEBATE' },
    { from: 'DEBATE', to: 'REVOTE' },
    { from: 'REVOTE', to: 'MODERATE' },
    { from: 'MODERATE', to: 'DONE' },
    { from: 'DONE', to: 'APPEAL', label: 'new evidence' },
    { from: 'MODERATE', to: 'HALTED', label: 'a halt' },
  ],
};
