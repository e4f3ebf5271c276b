import { RoundtableMetrics } from '@roundtable/observability';
import type { TestRunner, TestRunOutcome } from '@roundtable/sandbox';
import { MeteredTestRunner } from './sandbox-run.metrics';

const outcome = (o: Partial<TestRunOutcome>): TestRunOutcome => ({
  command: 'pytest',
  exit_code: 0,
  passed: 1,
  failed: 0,
  errors: 0,
  duration_s: 0.1,
  stdout_tail: '',
  output: '',
  timed_out: false,
  oom_killed: false,
  ...o,
});

function runnerOf(kind: string, results: (TestRunOutcome | Error)[]): TestRunner {
  return {
    kind,
    run: async () => {
      const next = results.shift()!;
      if (next instanceof Error) throw next;
      return next;
    },
  };
}

describe('MeteredTestRunner', () => {
  it('counts each run by runner and outcome and times it, passing the outcome through', async () => {
    const metrics = new RoundtableMetrics('test-runner', { defaultMetrics: false });
    const inner = runnerOf('docker', [outcome({}), outcome({ exit_code: 1, failed: 1 }), outcome({ exit_code: 137, timed_out: true }), new Error('engine gone')]);
    const metered = new MeteredTestRunner(inner, metrics);
    expect(metered.kind).toBe('docker');
    const req = { workspace: '/ws', command: 'pytest', timeoutMs: 1000 };
    expect((await metered.run(req)).exit_code).toBe(0);
    await metered.run(req);
    await metered.run(req);
    await expect(metered.run(req)).rejects.toThrow('engine gone');

    const runs = (await metrics.sandboxRuns.get()).values.map((v) => [v.labels.outcome, v.value]);
    expect(runs.sort()).toEqual([['error', 1], ['failed', 1], ['passed', 1], ['timed_out', 1]]);
    const count = (await metrics.sandboxDuration.get()).values.find((v) => v.metricName === 'roundtable_sandbox_run_duration_seconds_count');
    expect(count).toMatchObject({ labels: { runner: 'docker' }, value: 4 });
  });
});
