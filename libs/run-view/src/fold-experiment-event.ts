import type { RunEventEnvelope, RunEventPayload, RunEventType } from '@roundtable/contracts';
import type { ExperimentView, RunView } from './run-view';

type P<T extends RunEventType> = RunEventPayload<T>;

const withExperiment = (view: RunView, part: Partial<ExperimentView>): RunView => ({
  ...view,
  experiment: { ...(view.experiment ?? { method: null, decision: null }), ...part },
});

/**
 * An experiment's own events (issue 24): the method's command started and finished (what it
 * measured, or why nothing), and the decision code made. null: not one of these events.
 */
export function foldExperimentEvent(view: RunView, ev: RunEventEnvelope): RunView | null {
  switch (ev.type) {
    case 'method_started': {
      const p = ev.payload as P<'method_started'>;
      return withExperiment(view, { method: { opId: p.op_id, command: p.command, metricNames: p.metrics, metrics: null, exitCode: null, error: null, sequence: ev.sequence } });
    }
    case 'method_finished': {
      const p = ev.payload as P<'method_finished'>;
      const started = view.experiment?.method;
      const method = { opId: p.op_id, command: started?.command ?? '', metricNames: started?.metricNames ?? [], metrics: p.metrics, exitCode: p.exit_code, error: p.error, sequence: ev.sequence };
      return withExperiment(view, { method });
    }
    case 'experiment_decided':
      return withExperiment(view, { decision: { ...(ev.payload as P<'experiment_decided'>), sequence: ev.sequence } });
    default:
      return null;
  }
}
