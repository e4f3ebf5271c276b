import { TERMINAL_EVENT_TYPES } from '@roundtable/contracts';
import { endsStream, STREAM_END_TYPES } from './stream-end';

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
