import type { RunEventEnvelope, RunEventPayload, RunEventType } from '@roundtable/contracts';
import { paintVerdict, Style } from './terminal';

type Payload<T extends RunEventType> = RunEventPayload<T>;

const metricList = (metrics: Record<string, number>): string =>
  Object.entries(metrics)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

/**
 * The lines of `run --follow` for an experiment's own events (issue 24): the method's command,
 * what it measured, and the decision code made (with an override request, never applied, and a
 * critic's disagreement). null: not an experiment event.
 */
export function experimentLines(ev: RunEventEnvelope, s: Style): string[] | null {
  switch (ev.type) {
    case 'method_started': {
      const p = ev.payload as Payload<'method_started'>;
      return [`${s.cyan('[RUN]')} method: ${p.command} (metrics: ${p.metrics.join(', ')})`];
    }
    case 'method_finished': {
      const p = ev.payload as Payload<'method_finished'>;
      if (p.metrics === null) return [s.red(`[RUN] no result: ${p.error ?? 'the method reported no metrics'}`)];
      return [`${s.cyan('[RUN]')} measured (exit ${p.exit_code}): ${metricList(p.metrics)}`];
    }
    case 'experiment_decided': {
      const p = ev.payload as Payload<'experiment_decided'>;
      const lines = [`${s.cyan('[DONE]')} decided by code: ${paintVerdict(s, p.decision)}${p.decision !== p.computed ? ` (computed ${p.computed})` : ''}`];
      if (p.override_request) lines.push(s.yellow(`! the interpreter asked for ${p.override_request.decision}: an override request, not applied`));
      if (p.open_question) lines.push(s.yellow(`? ${p.open_question}`));
      return lines;
    }
    default:
      return null;
  }
}
