import { RunRenderer } from './run-renderer';
import { styleFor } from './terminal';

describe('RunRenderer: provider fallback', () => {
  it('shows the switch to the fallback provider with its reason', () => {
    const renderer = new RunRenderer(styleFor({ write: () => true, isTTY: false }, {}), { autonomy: 2 });
    const lines = renderer.render({
      type: 'provider_fallback',
      run_id: 'run_x',
      sequence: 7,
      created_at: '2026-01-01T10:00:00.000Z',
      payload: { role: 'critic', from: 'xai', to: 'anthropic', reason: 'critic call on xai/grok-4 failed (USAGE_LIMIT): quota\nspent' },
    });
    expect(lines).toEqual(['! fallback: critic xai -> anthropic: critic call on xai/grok-4 failed (USAGE_LIMIT): quota spent']);
  });
});
