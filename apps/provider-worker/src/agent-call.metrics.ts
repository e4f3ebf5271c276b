import type { DataSource } from 'typeorm';
import type { RoundtableMetrics } from '@roundtable/observability';
import { preparedQuery } from '@roundtable/persistence';
import type { ExecuteResult } from './agent-call.service';

interface RecordedRow {
  provider: string;
  model: string;
  status: string;
  valid: boolean | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: string | null;
}

/**
 * Counts the agent_calls row one delivery recorded, read back after AgentCallService.execute() so the
 * service's provider-call logic stays as it is. The recorded row is the one execute() reports (done),
 * or the try its new retry row retries (retry); `finished_at >= since` leaves out a row an earlier
 * delivery recorded, so a redelivered job is not counted twice.
 */
export class AgentCallMetrics {
  constructor(
    private readonly ds: DataSource,
    private readonly metrics: RoundtableMetrics,
  ) {}

  async observe(runId: string, result: ExecuteResult, since: Date): Promise<void> {
    // Prepared (parsed and planned once per connection): it runs after every call.
    const { rows } = await preparedQuery<RecordedRow>(
      this.ds,
      `SELECT provider, model, status, valid, input_tokens, output_tokens, cost_usd
         FROM agent_calls
        WHERE run_id = $1 AND finished_at >= $3
          AND (id = $2 OR id = (SELECT retry_of FROM agent_calls WHERE id = $2 AND run_id = $1))`,
      [runId, result.callId, since],
    );
    for (const r of rows) {
      const labels = { provider: r.provider, model: r.model };
      const status = r.status === 'completed' && r.valid === false ? 'invalid' : r.status;
      this.metrics.agentCalls.inc({ ...labels, status });
      if (r.input_tokens) this.metrics.agentTokens.inc({ ...labels, direction: 'input' }, r.input_tokens);
      if (r.output_tokens) this.metrics.agentTokens.inc({ ...labels, direction: 'output' }, r.output_tokens);
      if (r.cost_usd !== null && Number(r.cost_usd) > 0) this.metrics.agentCostUsd.inc(labels, Number(r.cost_usd));
    }
  }
}
