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

/** One cassette for many tasks (an eval's): a reply with `match` is its role's only for a prompt holding that text. */
describe('ReplayProvider and match', () => {
  const cassette = path.join(mkdtempSync(path.join(tmpdir(), 'rt-replay-match-')), 'cassette.json');
  const other = { ...PROPOSAL, claim: 'the other task' };
  writeFileSync(cassette, JSON.stringify({ replies: [{ role: 'proposer', match: 'roman numerals', reply: other }, { role: 'proposer', match: 'maximum drawdown', reply: PROPOSAL }] }));

  it("answers each prompt with the reply its text matches, at the role's ordinal among those", async () => {
    expect((await new ReplayProvider('replay', cassette).run(proposerRequest())).parsed).toEqual(PROPOSAL);
    const roman = proposerRequest({ messages: [{ role: 'user', content: 'Objective: roman numerals both ways.' }] });
    expect((await new ReplayProvider('replay', cassette).run(roman)).parsed).toEqual(other);
  });

  it('a prompt no reply matches is exhausted, saying so', async () => {
    const none = proposerRequest({ messages: [{ role: 'user', content: 'Objective: something else.' }] });
    await expect(new ReplayProvider('replay', cassette).run(none)).rejects.toThrow(/has no reply #1 for role proposer and this prompt \(it holds 0\)/);
    await expect(new ReplayProvider('replay', cassette).run({ ...proposerRequest(), ordinal: 1 })).rejects.toThrow(/no reply #2/);
  });
});
