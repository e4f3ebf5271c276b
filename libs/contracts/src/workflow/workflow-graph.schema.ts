import { z } from 'zod';

/**
 * A workflow's shape as its module declares it (issue 22: the run page's stage graph): its
 * stages, the gates a person decides at, the loops and the cap that bounds each, and where a
 * run ends. Drawn by the workbench from GET /v1/workflows, lit by the run's stage; never
 * inferred from a run's events.
 */
export const WorkflowGraphNode = z.object({
  id: z.string().describe('a stage as runs.stage holds it'),
  label: z.string(),
  kind: z.enum(['start', 'stage', 'gate', 'end', 'halt']),
});

export const WorkflowGraphEdge = z.object({
  from: z.string(),
  to: z.string(),
  /** When the edge is taken, in a few words. */
  label: z.string().optional(),
  /** A loop back: the budget field that caps how often (budget.max_rounds, budget.max_fix_rounds). */
  loop: z.string().optional(),
});

export const WorkflowGraph = z.object({
  nodes: z.array(WorkflowGraphNode),
  edges: z.array(WorkflowGraphEdge),
});
export type WorkflowGraph = z.infer<typeof WorkflowGraph>;

/** One entry of GET /v1/workflows. */
export const WorkflowSummary = z.object({
  name: z.string(),
  stages: z.array(z.string()),
  graph: WorkflowGraph,
});
export const WorkflowList = z.array(WorkflowSummary);
export type WorkflowSummary = z.infer<typeof WorkflowSummary>;
