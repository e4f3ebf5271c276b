import type { RunEventEnvelope, RunEventPayload, RunEventType } from '@roundtable/contracts';
import type { BuildView, RunView } from './run-view';

type P<T extends RunEventType> = RunEventPayload<T>;

const withBuild = (view: RunView, build: Partial<BuildView>): RunView => ({ ...view, build: { ...view.build, ...build } });

/** The build workflow's record events (bodies are on GET /v1/runs/:id/records). null: not one of them. */
export function foldBuildEvent(view: RunView, ev: RunEventEnvelope): RunView | null {
  const b = view.build;
  switch (ev.type) {
    case 'proposal_recorded':
      return withBuild(view, { proposals: [...b.proposals, ev.payload as P<'proposal_recorded'>] });
    case 'critique_recorded':
      return withBuild(view, { critiques: [...b.critiques, ev.payload as P<'critique_recorded'>] });
    case 'criteria_locked':
      return withBuild(view, { criteria: (ev.payload as P<'criteria_locked'>).criteria });
    case 'implementation_recorded':
      return withBuild(view, { implementations: [...b.implementations, ev.payload as P<'implementation_recorded'>] });
    case 'files_requested':
      return withBuild(view, { fileRequests: [...b.fileRequests, ev.payload as P<'files_requested'>] });
    case 'files_read':
      return withBuild(view, { fileReads: [...b.fileReads, ev.payload as P<'files_read'>] });
    case 'engineer_tools_ran':
      return withBuild(view, { toolTurns: [...b.toolTurns, ev.payload as P<'engineer_tools_ran'>] });
    case 'tests_started': {
      const p = ev.payload as P<'tests_started'>;
      return withBuild(view, { tests: [...b.tests, { implementation: p.implementation, command: p.command, result: null }] });
    }
    case 'tests_completed': {
      const p = ev.payload as P<'tests_completed'>;
      // The result belongs to the latest run still waiting for one (tests run one at a time).
      const i = b.tests.map((t) => t.result === null).lastIndexOf(true);
      const tests = b.tests.slice();
      if (i < 0) tests.push({ implementation: p.label, command: '', result: p });
      else tests[i] = { ...tests[i], result: p };
      return withBuild(view, { tests });
    }
    case 'review_recorded':
      return withBuild(view, { reviews: [...b.reviews, ev.payload as P<'review_recorded'>] });
    case 'synthesis_recorded':
      return withBuild(view, { synthesis: ev.payload as P<'synthesis_recorded'> });
    // Stryker disable next-line ConditionalExpression: emptied, the switch ends and the function returns undefined, which the reducer's `??` chain treats as null
    default:
      return null;
  }
}
