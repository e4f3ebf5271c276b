import type { WorkflowGraph } from '@roundtable/contracts';

/** The experiment's shape (issue 24), for the run page's stage graph. */
export const EXPERIMENT_GRAPH: WorkflowGraph = {
  nodes: [
    { id: 'INIT', label: 'Start', kind: 'start' },
    { id: 'DRAFT', label: 'Proposer drafts a preregistration', kind: 'stage' },
    { id: 'LOCK', label: 'A person approves it: locked', kind: 'gate' },
    { id: 'RUN', label: 'Method runs in the sandbox at the pinned commit', kind: 'stage' },
    { id: 'INTERPRET', label: 'Interpreter reads each criterion', kind: 'stage' },
    { id: 'REVIEW', label: 'Critic reviews the reading (author-blind)', kind: 'stage' },
    { id: 'DONE', label: 'Decided by code: PASS / KILL / INCONCLUSIVE', kind: 'end' },
    { id: 'HALTED', label: 'Halted', kind: 'halt' },
  ],
  edges: [
    { from: 'INIT', to: 'DRAFT', label: 'drafted' },
    { from: 'INIT', to: 'RUN', label: 'preregistered' },
    { from: 'DRAFT', to: 'LOCK' },
    { from: 'LOCK', to: 'RUN', label: 'approved' },
    { from: 'LOCK', to: 'DONE', label: 'refused' },
    { from: 'RUN', to: 'INTERPRET' },
    { from: 'INTERPRET', to: 'REVIEW' },
    { from: 'REVIEW', to: 'DONE' },
    { from: 'RUN', to: 'HALTED', label: 'no metrics' },
  ],
};
