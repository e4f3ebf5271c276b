import type { RunEventEnvelope } from '@roundtable/contracts';
import { appendEnvelope, eventTypes, filterEnvelopes } from './run-events';

const env = (sequence: number, type: string): RunEventEnvelope => ({ type, run_id: 'r', sequence, payload: {}, created_at: '2026-01-01T00:00:00Z' });

describe('the Events tab list', () => {
  it('keeps each envelope once, oldest first, and no live-only token delta', () => {
    let list: readonly RunEventEnvelope[] = [];
    for (const e of [env(1, 'run_created'), env(2, 'stage_changed'), env(2, 'stage_changed'), env(1, 'run_created'), env(2, 'debate_token_delta'), env(3, 'agent_call_queued')]) list = appendEnvelope(list, e);
    expect(list.map((e) => e.sequence)).toEqual([1, 2, 3]);
  });

  it('lists the types seen with counts, and filters by the chosen ones (all when none is)', () => {
    const list = [env(1, 'run_created'), env(2, 'agent_call_queued'), env(3, 'agent_call_completed'), env(4, 'agent_call_queued')];
    expect(eventTypes(list)).toEqual([{ type: 'run_created', count: 1 }, { type: 'agent_call_queued', count: 2 }, { type: 'agent_call_completed', count: 1 }]);
    expect(filterEnvelopes(list, new Set(['agent_call_queued'])).map((e) => e.sequence)).toEqual([2, 4]);
    expect(filterEnvelopes(list, new Set())).toBe(list);
  });
});
