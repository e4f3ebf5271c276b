import { WorkflowGraph } from '@roundtable/contracts';
import { WORKFLOWS } from './workflows';

/** Each module's stage graph (issue 22) holds its stages and nothing else, and every edge joins two of its nodes. */
describe.each(Object.values(WORKFLOWS))('the $name workflow graph', (module) => {
  it('is a valid graph whose nodes are exactly the stages a run may stand in', () => {
    expect(WorkflowGraph.parse(module.graph)).toEqual(module.graph);
    expect(module.graph.nodes.map((n) => n.id).sort()).toEqual([...module.stages].sort());
  });

  it('joins only its own nodes, starts once, and reaches an end from the start', () => {
    const ids = new Set(module.graph.nodes.map((n) => n.id));
    for (const e of module.graph.edges) expect([e.from, ids.has(e.from), e.to, ids.has(e.to)]).toEqual([e.from, true, e.to, true]);
    const starts = module.graph.nodes.filter((n) => n.kind === 'start');
    expect(starts).toHaveLength(1);
    const seen = new Set([starts[0].id]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const e of module.graph.edges) if (seen.has(e.from) && !seen.has(e.to)) grew = !!seen.add(e.to);
    }
    expect(module.graph.nodes.filter((n) => n.kind === 'end').every((n) => seen.has(n.id))).toBe(true);
  });
});
