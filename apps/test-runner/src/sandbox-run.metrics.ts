import type { RoundtableMetrics } from '@roundtable/observability';
import type { TestRunner, TestRunOutcome, TestRunRequest } from '@roundtable/sandbox';

function outcomeOf(o: TestRunOutcome): string {
  if (o.timed_out) return 'timed_out';
  if (o.oom_killed) return 'oom_killed';
  return o.exit_code === 0 ? 'passed' : 'failed';
}

/** A runner that counts its runs (by outcome) and times them, for roundtable_sandbox_runs_total and its histogram. */
export class MeteredTestRunner implements TestRunner {
  constructor(
    private readonly inner: TestRunner,
    private readonly metrics: RoundtableMetrics,
  ) {}

  get kind(): string {
    return this.inner.kind;
  }

  async run(req: TestRunRequest): Promise<TestRunOutcome> {
    const started = process.hrtime.bigint();
    const runner = this.inner.kind;
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const outcome = await this.inner.run(req);
      this.metrics.sandboxRuns.inc({ runner, outcome: outcomeOf(outcome) });
      this.metrics.sandboxDuration.observe({ runner }, seconds());
      return outcome;
    } catch (e) {
      this.metrics.sandboxRuns.inc({ runner, outcome: 'error' });
      this.metrics.sandboxDuration.observe({ runner }, seconds());
      throw e;
    }
  }
}
