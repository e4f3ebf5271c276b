import type { RoundtableMetrics } from '@roundtable/observability';
import type { RecordedTry } from './agent-call.service';

/**
 * Counts each try a delivery recorded (AgentCallService's onRecorded): calls by status
 * (`invalid` for a reply that failed its schema), tokens by direction and USD, by provider and
 * model. From the outcome in hand, so no call costs a read-back; a redelivery that finds its
 * try already recorded reports nothing, so nothing is counted twice.
 */
export class AgentCallMetrics {
  constructor(private readonly metrics: RoundtableMetrics) {}

  observe({ provider, model, outcome: o }: RecordedTry): void {
    const labels = { provider, model };
    const status = o.status === 'completed' && o.valid === false ? 'invalid' : o.status;
    this.metrics.agentCalls.inc({ ...labels, status });
    if (o.input_tokens) this.metrics.agentTokens.inc({ ...labels, direction: 'input' }, o.input_tokens);
    if (o.output_tokens) this.metrics.agentTokens.inc({ ...labels, direction: 'output' }, o.output_tokens);
    if (o.cost_usd !== null && o.cost_usd > 0) this.metrics.agentCostUsd.inc(labels, o.cost_usd);
  }
}
