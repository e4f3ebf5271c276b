import { looksLikeLabel, refuseBareLabel } from './call-label';

describe('call labels', () => {
  it('tells a label from a call id', () => {
    for (const l of ['C1', 'P2', 'I1f1', 'VC1', 'r1']) expect(looksLikeLabel(l)).toBe(true);
    for (const id of ['run_ab12-c3', 'weird', 'run_x-c12']) expect(looksLikeLabel(id)).toBe(false);
  });

  it('asks for the run of a bare label', () => {
    expect(() => refuseBareLabel('C1', undefined)).toThrow('C1 is a call label: name its run as <run>/C1 or add --run <run>');
    expect(() => refuseBareLabel('C1', 'run_a')).not.toThrow();
    expect(() => refuseBareLabel('run_a/C1', undefined)).not.toThrow();
  });
});
