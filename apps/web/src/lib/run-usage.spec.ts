import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunEventEnvelope } from '@roundtable/contracts';
import { emptyRunView, foldRunEvent, type RunView } from '@roundtable/run-view';
import type { RunDetail } from './api-types';
import { runUsage } from './run-usage';

const log = JSON.parse(readFileSync(path.join(__dirname, '../../../../libs/run-view/fixtures/dd-demo.events.json'), 'utf8')) as RunEventEnvelope[];
const fold = (events: RunEventEnvelope[]): RunView => events.reduce(foldRunEvent, emptyRunView());
/** The view after the `n`th agent_call_completed. */
const afterCalls = (n: number): RunView => {
  let seen = 0;
  return fold(log.slice(0, log.findIndex((e) => e.type === 'agent_call_completed' && ++seen === n) + 1));
};
const detail = (status: RunDetail['status'], usage: Partial<RunDetail['usage']>): Pick<RunDetail, 'status' | 'usage'> => ({
  status,
  usage: { calls: 0, failed_calls: 0, input_tokens: 0, output_tokens: 0, tokens: 0, cost_usd: null, unpriced_calls: 0, seconds: null, ...usage },
});

describe('runUsage: the one set of usage figures the header and the Budget panel show', () => {
  it('while the run goes on, is the live tally, even when the fetched detail is behind it', () => {
    const view = afterCalls(3);
    expect(view.usage.calls).toBe(3);
    const behind = detail('running', { calls: 2, tokens: 10, cost_usd: 0.001 });
    expect(runUsage(view, behind)).toEqual(view.usage);
    expect(runUsage(view, null)).toEqual(view.usage);
  });

  it("before the stream has folded an event (a reload's first moment), is the detail's", () => {
    const d = detail('running', { calls: 4, failed_calls: 1, tokens: 900, cost_usd: 0.02, unpriced_calls: 1 });
    expect(runUsage(emptyRunView(), d)).toEqual({ calls: 4, failedCalls: 1, tokens: 900, costUsd: 0.02, unpricedCalls: 1 });
  });

  it("once the run has ended, is the api's (the authority) when the detail has seen that end, else still the tally", () => {
    const done = fold(log);
    expect(done.status).toBe('done');
    const final = detail('done', { calls: done.usage.calls, tokens: done.usage.tokens + 1, cost_usd: 0.5 });
    expect(runUsage(done, final)).toMatchObject({ calls: done.usage.calls, tokens: done.usage.tokens + 1, costUsd: 0.5 });
    expect(runUsage(done, detail('running', { calls: 1 }))).toEqual(done.usage);
  });
});
