import { LIVE_ONLY_EVENT_TYPES } from '@roundtable/contracts';
import { isLiveOnly, LIVE_ONLY_TYPES } from './live-only-events';

describe('live-only event types restated for the zod-free clients', () => {
  it('are the contracts\'', () => {
    expect(LIVE_ONLY_TYPES).toEqual(LIVE_ONLY_EVENT_TYPES);
    expect(isLiveOnly('debate_token_delta')).toBe(true);
    expect(isLiveOnly('debate_message_published')).toBe(false);
    expect(isLiveOnly(null)).toBe(false);
  });
});
