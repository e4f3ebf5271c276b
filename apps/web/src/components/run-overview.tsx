import type { RunView } from '@roundtable/run-view';
import { useMemo } from 'react';
import type { CallSummary, RunDetail, WorkflowSummary } from '../lib/api-types';
import type { StageRun } from '../lib/stage-graph';
import { Budget } from './budget';
import { BudgetBurn } from './budget-burn';
import { Empty, Section } from './section';
import { StageGraph } from './stage-graph';
import { errorText, type Async } from './use-async';
import { Waterfall } from './waterfall';

/** The Overview tab: where the run stands in its workflow, its calls on one time axis, and its spend against the caps. */
export function RunOverview({ runId, view, detail, workflows, calls }: { runId: string; view: RunView; detail: RunDetail | null; workflows: Async<WorkflowSummary[]>; calls: Async<CallSummary[]> }) {
  const name = view.workflow ?? detail?.workflow ?? null;
  const workflow = workflows.state === 'ok' ? workflows.value.find((w) => w.name === name) : undefined;
  const visited = useMemo(() => view.stages.map((s) => s.stage), [view.stages]);
  const run = useMemo<StageRun>(
    () => ({ stage: view.stage ?? detail?.stage ?? null, visited, status: view.status === 'unknown' ? (detail?.status ?? 'unknown') : view.status, round: detail?.round ?? null, fixRound: detail?.fix_round ?? null, caps: detail?.caps ?? null }),
    [view.stage, view.status, visited, detail],
  );
  const list = calls.state === 'ok' ? calls.value : [];
  const now = Date.now();
  const startedAt = detail?.started_at ? Date.parse(detail.started_at) : view.startedAt ? Date.parse(view.startedAt) : null;
  return (
    <>
      <Section title="Stage graph">
        {workflows.state === 'error' ? (
          <p className="error">Could not load the workflows: {errorText(workflows.error)}</p>
        ) : workflow ? (
          <StageGraph graph={workflow.graph} run={run} />
        ) : (
          <Empty>{name && workflows.state === 'ok' ? `This api does not describe the workflow ${name}.` : 'Loading the workflow…'}</Empty>
        )}
      </Section>
      <Section title="Waterfall">
        {calls.state === 'error' ? <p className="error">Could not load the calls: {errorText(calls.error)}</p> : <Waterfall runId={runId} calls={list} now={now} />}
      </Section>
      <Section title="Budget burn">
        <BudgetBurn calls={list} caps={detail?.caps ?? null} startedAt={startedAt} now={now} />
      </Section>
      <Budget view={view} detail={detail} />
    </>
  );
}
