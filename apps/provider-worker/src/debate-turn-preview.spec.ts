import type { LiveRunEvent } from '@roundtable/contracts';
import { DebateTurnPreview } from './debate-turn-preview';

const TURN = JSON.stringify({ speaker: 'pm', round: 1, message: 'Retention, not acquisition, is the question here.', responds_to: ['D1'] });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('DebateTurnPreview', () => {
  it('publishes the message as it grows, batched, and all of it by finish()', async () => {
    const sent: LiveRunEvent[] = [];
    const preview = new DebateTurnPreview({ runId: 'r1', speaker: 'pm' }, async (e) => void sent.push(e), { intervalMs: 30 });
    for (const ch of TURN) {
      preview.push(ch);
      await pause(1);
    }
    await preview.finish();
    const deltas = sent.map((e) => e.payload.delta);
    expect(deltas.join('')).toBe(JSON.parse(TURN).message);
    // A piece a character, but far fewer publishes than pieces.
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.length).toBeLessThan(TURN.length / 3);
    expect(sent[0]).toMatchObject({ type: 'debate_token_delta', run_id: 'r1', payload: { speaker: 'pm', round: 1 } });
  });

  it('publishes nothing before the round is known, nor after cancel(), and survives a failing sink', async () => {
    const errors: Error[] = [];
    const sent: LiveRunEvent[] = [];
    let fail = true;
    const preview = new DebateTurnPreview(
      { runId: 'r1', speaker: 'vc' },
      async (e) => {
        if (fail) throw new Error('redis down');
        sent.push(e);
      },
      { intervalMs: 5, onError: (e) => errors.push(e) },
    );
    preview.push('{"message": "no round yet');
    await pause(20);
    preview.push('", "round": 1}');
    await pause(20);
    fail = false;
    await preview.cancel();
    // An adapter that goes on after the call gave up on it publishes nothing more.
    preview.push('", "round": 1, "message": "late"}');
    await pause(20);
    expect(errors.map((e) => e.message)).toEqual(['redis down']);
    expect(sent).toEqual([]);
  });
});
