import { SubmissionKey } from './submission-key';

describe('SubmissionKey', () => {
  const counter = () => {
    let n = 0;
    return () => `k${++n}`;
  };

  it('gives the same key for the same text (a double click makes one run)', () => {
    const k = new SubmissionKey(counter());
    expect(k.for('project: x\n')).toBe('k1');
    expect(k.for('project: x\n')).toBe('k1');
  });

  it('gives a new key once the text changed', () => {
    const k = new SubmissionKey(counter());
    k.for('project: x\n');
    expect(k.for('project: y\n')).toBe('k2');
    expect(k.for('project: x\n')).toBe('k3');
  });

  it('gives a new key after a run was made, even for the same text', () => {
    const k = new SubmissionKey(counter());
    k.for('project: x\n');
    k.used();
    expect(k.for('project: x\n')).toBe('k2');
  });

  it('makes random keys the api accepts by default', () => {
    const a = new SubmissionKey().for('a');
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(new SubmissionKey().for('a')).not.toBe(a);
  });
});
