import type { WorkflowGraph } from './api-types';
import { layoutStageGraph, loopCount, stageStates, type StageRun } from './stage-graph';

const GRAPH: WorkflowGraph = {
  nodes: [
    { id: 'INIT', label: 'Start', kind: 'start' },
    { id: 'PROPOSE', label: 'Propose', kind: 'stage' },
    { id: 'CRITIQUE', label: 'Critique', kind: 'stage' },
    { id: 'REVISE', label: 'Revise', kind: 'stage' },
    { id: 'DONE', label: 'Done', kind: 'end' },
    { id: 'HALTED', label: 'Halted', kind: 'halt' },
  ],
  edges: [
    { from: 'INIT', to: 'PROPOSE' },
    { from: 'PROPOSE', to: 'CRITIQUE' },
    { from: 'CRITIQUE', to: 'REVISE', label: 'REVISE', loop: 'budget.max_rounds' },
    { from: 'REVISE', to: 'CRITIQUE' },
    { from: 'CRITIQUE', to: 'DONE', label: 'ACCEPT' },
    { from: 'CRITIQUE', to: 'HALTED' },
  ],
};
const caps = { max_rounds: 3, max_fix_rounds: 2 };
const run = (over: Partial<StageRun> = {}): StageRun => ({ stage: 'CRITIQUE', visited: ['INIT', 'PROPOSE', 'CRITIQUE'], status: 'running', round: 1, fixRound: 0, caps, ...over });

describe('the stage graph', () => {
  it("lights the run's stage, marks the stages it went through, and leaves the rest ahead", () => {
    const s = stageStates(GRAPH, run());
    expect(Object.fromEntries([...s].map(([id, v]) => [id, v.state]))).toEqual({ INIT: 'passed', PROPOSE: 'passed', CRITIQUE: 'current', REVISE: 'ahead', DONE: 'ahead', HALTED: 'ahead' });
  });

  it('lights the halt node of a halted run, the stage it halted in passed', () => {
    const s = stageStates(GRAPH, run({ status: 'halted' }));
    expect(s.get('HALTED')).toEqual({ state: 'current', halted: true });
    expect(s.get('CRITIQUE')!.state).toBe('passed');
  });

  it("labels a loop with the run's rounds against its cap", () => {
    expect(loopCount('budget.max_rounds', run({ round: 2 }))).toBe('round 2 of 3');
    expect(loopCount('budget.max_fix_rounds', run({ fixRound: null }))).toBe('at most 2');
    expect(loopCount('budget.max_fix_rounds', run({ caps: null }))).toBe('round 0');
  });

  it('lays every node and edge out with dagre, top to bottom, inside its size', () => {
    const l = layoutStageGraph(GRAPH, run({ round: 2 }));
    expect(l.nodes.map((n) => n.id)).toEqual(GRAPH.nodes.map((n) => n.id));
    for (const n of l.nodes) {
      expect(n.x - n.width / 2).toBeGreaterThanOrEqual(0);
      expect(n.y + n.height / 2).toBeLessThanOrEqual(l.height);
    }
    const y = (id: string) => l.nodes.find((n) => n.id === id)!.y;
    expect(y('INIT')).toBeLessThan(y('PROPOSE'));
    expect(y('PROPOSE')).toBeLessThan(y('CRITIQUE'));
    const loop = l.edges.find((e) => e.loop)!;
    expect(loop.label).toBe('REVISE · round 2 of 3');
    expect(loop.labelAt).not.toBeNull();
    expect(l.edges.every((e) => e.points.length >= 2)).toBe(true);
    expect(l.edges.find((e) => e.from === 'INIT')!.label).toBeNull();
  });
});
