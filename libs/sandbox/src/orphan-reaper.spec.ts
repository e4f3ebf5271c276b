import { isOrphan } from './orphan-reaper';

const self = { host: 'runner-a', pid: 100, instance: 'me' };
const now = 1_000_000;
const alive = new Set([100, 200]);
const settings = { now, self, isAlive: (pid: number) => alive.has(pid) };
const labels = (owner: string, deadline = now + 60_000) => ({
  'roundtable.sandbox': '1',
  'roundtable.owner': owner,
  'roundtable.deadline': String(deadline),
});

describe('isOrphan', () => {
  it('keeps a container of this process within its deadline', () => {
    expect(isOrphan(labels('runner-a/100/me'), settings)).toBe(false);
  });

  it('takes any container past its deadline, even one of this process', () => {
    expect(isOrphan(labels('runner-a/100/me', now - 1), settings)).toBe(true);
    expect(isOrphan(labels('elsewhere/7/x', now - 1), settings)).toBe(true);
  });

  it('takes a container of an earlier process on this host that is gone', () => {
    expect(isOrphan(labels('runner-a/300/old'), settings)).toBe(true);
  });

  it('takes a container of an earlier process that had our pid (a restarted container is pid 1 again)', () => {
    expect(isOrphan(labels('runner-a/100/previous-instance'), settings)).toBe(true);
  });

  it('leaves a live test-runner on the same host alone', () => {
    expect(isOrphan(labels('runner-a/200/other'), settings)).toBe(false);
  });

  it('leaves a container of another host alone until its deadline (its pid means nothing here)', () => {
    expect(isOrphan(labels('runner-b/300/x'), settings)).toBe(false);
  });

  it('takes a labelled container whose labels are unreadable', () => {
    expect(isOrphan({ 'roundtable.sandbox': '1' }, settings)).toBe(true);
    expect(isOrphan(labels('nonsense'), settings)).toBe(true);
    expect(isOrphan({ ...labels('runner-a/100/me'), 'roundtable.deadline': 'soon' }, settings)).toBe(true);
  });
});
