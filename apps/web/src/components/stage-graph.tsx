import { useMemo } from 'react';
import type { WorkflowGraph } from '../lib/api-types';
import { layoutStageGraph, type StageNode, type StageRun } from '../lib/stage-graph';

const STATE_TEXT = { current: 'current stage', passed: 'passed', ahead: 'not reached' } as const;

const nodeName = (n: StageNode) => (n.state === 'current' ? `current stage: ${n.id}${n.halted ? ' (halted)' : ''}` : `${n.id}: ${STATE_TEXT[n.state]}`);

const pathOf = (pts: { x: number; y: number }[]) => pts.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');

/** The run's workflow as its module declares it (GET /v1/workflows), laid out by dagre, lit by the run. */
export function StageGraph({ graph, run }: { graph: WorkflowGraph; run: StageRun }) {
  const l = useMemo(() => layoutStageGraph(graph, run), [graph, run]);
  const current = l.nodes.find((n) => n.state === 'current');
  return (
    <figure className="stage-graph">
      <svg viewBox={`0 0 ${l.width} ${l.height}`} width={l.width} height={l.height} role="group" aria-label="Stage graph" data-testid="stage-graph">
        <defs>
          <marker id="stage-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" className="arrow" />
          </marker>
        </defs>
        <g aria-hidden="true">
          {l.edges.map((e, i) => (
            <g key={i} className={e.loop ? 'edge loop' : 'edge'}>
              <path d={pathOf(e.points)} markerEnd="url(#stage-arrow)" />
              {e.label && e.labelAt && (
                <text x={e.labelAt.x} y={e.labelAt.y} textAnchor="middle" dominantBaseline="middle" className="edge-label" data-testid={e.loop ? 'loop-label' : undefined}>
                  {e.label}
                </text>
              )}
            </g>
          ))}
        </g>
        <g role="list" aria-label="Stages of the workflow">
          {l.nodes.map((n) => (
            <g
              key={n.id}
              role="listitem"
              aria-label={nodeName(n)}
              aria-current={n.state === 'current' ? 'step' : undefined}
              data-stage={n.id}
              className={`node kind-${n.kind} state-${n.state}${n.halted ? ' halted' : ''}`}
              transform={`translate(${n.x - n.width / 2},${n.y - n.height / 2})`}
            >
              <rect width={n.width} height={n.height} rx={n.kind === 'gate' ? 2 : 8} />
              <text x={n.width / 2} y={n.height / 2} textAnchor="middle" dominantBaseline="middle">
                {n.state === 'passed' ? '✓ ' : ''}
                {n.label}
              </text>
            </g>
          ))}
        </g>
      </svg>
      <figcaption className="muted">
        {current ? `Current stage: ${current.label}${current.halted ? ' — the run halted' : ''}.` : 'The run has not entered a stage yet.'} Loops show their rounds against the caps.
      </figcaption>
    </figure>
  );
}
