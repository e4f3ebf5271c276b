import { envelope } from './event-samples.fixture';
import { foldRunEvent, foldRunEvents } from './fold-run-event';

/** A debate turn's tokens are in no log: a delta carries the sequence of the stored event it follows. */
describe('foldRunEvent with live-only envelopes (debate_token_delta)', () => {
  const before = foldRunEvents([envelope('run_created', 1, { project: 'swapboard', workflow: 'panel' }), envelope('agent_call_queued', 2)]);
  const delta = (sequence: number, text: string) => envelope('debate_token_delta', sequence, { speaker: 'vc', round: 1, delta: text });

  it('folds a delta at the last sequence without advancing it, so the next stored event still passes', () => {
    const growing = foldRunEvents([delta(2, 'The moat'), delta(2, ' is thin')], before);
    expect(growing.lastSequence).toBe(2);
    expect(growing.panel!.debate).toEqual([expect.objectContaining({ speaker: 'vc', round: 1, message: 'The moat is thin', streaming: true })]);
    const whole = foldRunEvent(growing, envelope('debate_message_published', 3));
    expect(whole.lastSequence).toBe(3);
    expect(whole.panel!.debate).toEqual([expect.objectContaining({ message: 'The moat is thin.', streaming: false })]);
  });

  it('drops a delta from before the view\'s last sequence (stale: its turn may be published), and another run\'s', () => {
    const published = foldRunEvents([delta(2, 'The moat'), envelope('debate_message_published', 3)], before);
    expect(foldRunEvent(published, delta(2, ' late'))).toBe(published);
    const other = { ...delta(3, 'x'), run_id: 'run-2' };
    expect(foldRunEvent(published, other)).toBe(published);
  });

  it('drops the text a failed or invalid debate try streamed, so its repair streams a turn of its own', () => {
    const facts = { call_id: 'c1', stage: 'DEBATE', role: 'vc', provider: 'p', model: 'm', attempt: 1 };
    const streamed = foldRunEvents([delta(2, '{not a turn')], before);
    const invalid = foldRunEvent(streamed, envelope('agent_call_completed', 3, { ...facts, valid: false }));
    expect(invalid.panel!.debate).toEqual([]);
    const failed = foldRunEvent(streamed, envelope('agent_call_failed', 3, { ...facts, error: 'timeout' }));
    expect(failed.panel!.debate).toEqual([]);
    // A valid try's turn stays until its message replaces it.
    const valid = foldRunEvent(streamed, envelope('agent_call_completed', 3, { ...facts, valid: true }));
    expect(valid.panel!.debate).toHaveLength(1);
  });
});
