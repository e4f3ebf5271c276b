import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROPOSAL, proposerRequest } from '../provider-request.fixture';
import { ReplayProvider } from './replay.provider';

/** Replay streams only when it has a latency to spread the reply over; either way the Completion is the same. */
describe('ReplayProvider and onDelta', () => {
  const cassette = path.join(mkdtempSync(path.join(tmpdir(), 'rt-replay-')), 'cassette.json');
  writeFileSync(cassette, JSON.stringify({ replies: [{ role: 'proposer', reply: PROPOSAL }] }));
  const comparable = (c: { latencyMs: number }) => ({ ...c, latencyMs: 0 });

  it('with a latency, plays the reply in pieces over it that add up to the text', async () => {
    const pieces: string[] = [];
    const started = Date.now();
    const streamed = await new ReplayProvider('replay', cassette, 120).run(proposerRequest({ onDelta: (t) => pieces.push(t) }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    const whole = await new ReplayProvider('replay', cassette, 120).run(proposerRequest());
    expect(comparable(streamed)).toEqual(comparable(whole));
    expect(pieces.length).toBeGreaterThan(10);
    expect(pieces.join('')).toBe(whole.text);
  });

  it('without a latency, answers whole and never calls onDelta', async () => {
    const pieces: string[] = [];
    const c = await new ReplayProvider('replay', cassette).run(proposerRequest({ onDelta: (t) => pieces.push(t) }));
    expect(c.parsed).toEqual(PROPOSAL);
    expect(pieces).toEqual([]);
  });
});
