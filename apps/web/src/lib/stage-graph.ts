import { Graph, layout } from '@dagrejs/dagre';
import type { RunCaps, WorkflowGraph } from './api-types';

/** Where a node of the stage graph stands in this run. */
export type StageState = 'current' | 'passed' | 'ahead';

/** What of the run the graph is lit by: the folded view's stage and stages, the api's rounds. */
export interface StageRun {
  stage: string | null;
  /** Every stage the run entered, in order (view.stages). */
  visited: readonly string[];
  status: string;
  /** GET /v1/runs/:id's round and fix_round (null until it answers), and the caps. */
  round: number | null;
  fixRound: number | null;
  caps: Pick<RunCaps, 'max_rounds' | 'max_fix_rounds'> | null;
}

export interface StageNode {
  id: string;
  label: string;
  kind: WorkflowGraph['nodes'][number]['kind'];
  state: StageState;
  /** The halt node of a halted run. */
  halted: boolean;
  /** Centre and size, in the layout's pixels. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface StageEdge {
  from: string;
  to: string;
  /** The edge's label, and for a loop its round count against the cap ("round 2 of 3"). */
  label: string | null;
  loop: boolean;
  /** The polyline dagre routed, from the first node's border to the second's. */
  points: { x: number; y: number }[];
  /** Where the label sits, or null. */
  labelAt: { x: number; y: number } | null;
}

export interface StageLayout {
  nodes: StageNode[];
  edges: StageEdge[];
  width: number;
  height: number;
}

const HALTED_STATUSES = new Set(['halted', 'failed', 'cancelled']);

/** How often a loop was taken against its cap, from the budget field the edge names. */
export function loopCount(loop: string, run: StageRun): string | null {
  const [used, cap] =
    loop === 'budget.max_rounds' ? [run.round, run.caps?.max_rounds ?? null] : loop === 'budget.max_fix_rounds' ? [run.fixRound, run.caps?.max_fix_rounds ?? null] : [null, null];
  if (used === null) return cap === null ? null : `at most ${cap}`;
  return cap === null ? `round ${used}` : `round ${used} of ${cap}`;
}

/** Each node's state: the run's stage is current (the halt node once a run halted), a stage it entered before is passed. */
export function stageStates(graph: WorkflowGraph, run: StageRun): Map<string, { state: StageState; halted: boolean }> {
  const halted = HALTED_STATUSES.has(run.status) || run.stage === 'HALTED';
  const haltNode = graph.nodes.find((n) => n.kind === 'halt')?.id ?? null;
  const current = halted && haltNode ? haltNode : run.stage;
  const visited = new Set(run.visited);
  const out = new Map<string, { state: StageState; halted: boolean }>();
  for (const n of graph.nodes) {
    const state: StageState = n.id === current ? 'current' : visited.has(n.id) || (n.kind === 'start' && run.visited.length > 0) ? 'passed' : 'ahead';
    out.set(n.id, { state, halted: halted && n.id === haltNode });
  }
  return out;
}

/** A node's box: wide enough for its label at the graph's font (about 7 px a character). */
const boxOf = (label: string) => ({ width: Math.max(72, Math.round(label.length * 7 + 24)), height: 34 });

/** The workflow's graph laid out top to bottom by dagre, each node lit by the run and each loop labelled with its rounds. */
export function layoutStageGraph(graph: WorkflowGraph, run: StageRun): StageLayout {
  const g = new Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 36, edgesep: 16, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of graph.nodes) g.setNode(n.id, { label: n.label, ...boxOf(n.label) });
  const labels = graph.edges.map((e) => {
    const count = e.loop ? loopCount(e.loop, run) : null;
    return [e.label, count].filter(Boolean).join(' · ') || null;
  });
  graph.edges.forEach((e, i) => {
    const label = labels[i];
    g.setEdge(e.from, e.to, label ? { label, width: label.length * 6.5, height: 14, labelpos: 'c' } : {}, `e${i}`);
  });
  layout(g);
  const states = stageStates(graph, run);
  const nodes: StageNode[] = graph.nodes.map((n) => {
    const p = g.node(n.id);
    const s = states.get(n.id)!;
    return { id: n.id, label: n.label, kind: n.kind, state: s.state, halted: s.halted, x: p.x, y: p.y, width: p.width, height: p.height };
  });
  const edges: StageEdge[] = graph.edges.map((e, i) => {
    const p = g.edge({ v: e.from, w: e.to, name: `e${i}` }) as { points?: { x: number; y: number }[]; x?: number; y?: number };
    return {
      from: e.from,
      to: e.to,
      label: labels[i],
      loop: Boolean(e.loop),
      points: p.points ?? [],
      labelAt: labels[i] && p.x !== undefined && p.y !== undefined ? { x: p.x, y: p.y } : null,
    };
  });
  const size = g.graph();
  return { nodes, edges, width: Math.ceil(size.width ?? 0), height: Math.ceil(size.height ?? 0) };
}
