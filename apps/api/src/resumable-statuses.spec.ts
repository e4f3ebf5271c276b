import { RESUMABLE_RUN_STATUSES } from '@roundtable/run-view';
import { RESUMABLE_STATUSES } from './run-control.service';

// The workbench offers Resume on run-view's zod-free copy; offering it where this api says 409 is a dead button.
describe('the statuses a resume is accepted on', () => {
  it('are the ones the zod-free clients offer it on', () => {
    expect(RESUMABLE_RUN_STATUSES).toEqual(RESUMABLE_STATUSES);
  });

  it('leave a cancelled run alone: a cancel is final', () => {
    expect(RESUMABLE_STATUSES).not.toContain('cancelled');
  });
});
