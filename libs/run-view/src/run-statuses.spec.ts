import { RunStatus, TERMINAL_RUN_STATUSES } from '@roundtable/contracts';
import { ENDED_RUN_STATUSES, isEndedStatus, RUN_STATUSES } from './run-statuses';

describe('run statuses restated for the zod-free clients', () => {
  it('are the contracts\' statuses, in their order', () => {
    expect(RUN_STATUSES).toEqual(RunStatus.options);
  });

  it('end where the contracts say a run ends', () => {
    expect(ENDED_RUN_STATUSES).toEqual(TERMINAL_RUN_STATUSES);
  });

  it('tells an ended status from a live one', () => {
    expect(RunStatus.options.filter(isEndedStatus)).toEqual([...TERMINAL_RUN_STATUSES]);
    expect(isEndedStatus(undefined)).toBe(false);
    expect(isEndedStatus('unknown')).toBe(false);
  });
});
