import { TERMINAL_EVENT_TYPES } from '@roundtable/contracts';
import { endsStream, logEndsWith, STREAM_END_TYPES, streamEndedAfter } from './stream-end';

describe('STREAM_END_TYPES', () => {
  it('is the contracts’ terminal event types and appeal_completed', () => {
    expect([...STREAM_END_TYPES].sort()).toEqual([...TERMINAL_EVENT_TYPES, 'appeal_completed'].sort());
  });

  it('ends on those types only', () => {
    expect(endsStream('run_completed')).toBe(true);
    expect(endsStream('appeal_completed')).toBe(true);
    expect(endsStream('panel_warning')).toBe(false);
    expect(endsStream(null)).toBe(false);
  });
});

describe('logEndsWith (the one rule for the end of a run\'s log)', () => {
  it('ends after a refused appeal: run_completed, panel_warning, budget_warning (issue 22)', () => {
    expect(logEndsWith(['run_completed', 'panel_warning', 'budget_warning'])).toBe(true);
  });

  it('ends whatever order the trailing warnings come in', () => {
    expect(logEndsWith(['run_completed', 'budget_warning', 'panel_warning'])).toBe(true);
    expect(logEndsWith(['appeal_completed', 'budget_warning'])).toBe(true);
    expect(logEndsWith(['run_completed', 'panel_warning', 'budget_warning', 'panel_warning'])).toBe(true);
  });

  it('does not end on warnings alone (mid-run) or once the run reopens', () => {
    expect(logEndsWith(['run_started', 'budget_warning', 'panel_warning'])).toBe(false);
    expect(logEndsWith(['run_completed', 'run_resumed', 'budget_warning'])).toBe(false);
    expect(logEndsWith(['run_completed', 'panel_warning', 'appeal_started'])).toBe(false);
    expect(logEndsWith([])).toBe(false);
  });

  it('carries an end already reached into the next events', () => {
    expect(streamEndedAfter(true, 'budget_warning')).toBe(true);
    expect(streamEndedAfter(false, 'budget_warning')).toBe(false);
    expect(logEndsWith(['panel_warning', 'budget_warning'], true)).toBe(true);
  });
});
