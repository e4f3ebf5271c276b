import { defaultDiffPair, lockedVersionsText, lockTextOf, shownVersionOf, unknownVersion, versionLabelOf, versionsNewestFirst } from './ideas-versions';

const versions = [
  { version: 1, locked: null, panels: [] },
  { version: 2, locked: { run_id: 'run_a', locked_at: '2026-04-01T00:00:00Z' }, panels: ['run_a', 'run_b'] },
  { version: 3, locked: null, panels: [] },
];
const detail = { latest_version: 3, versions };

describe('ideas: versions and their locks as the pages show them (issue 23)', () => {
  it('shows the version asked for when the idea has it, else the latest', () => {
    expect(shownVersionOf(detail, null)).toBe(3);
    expect(shownVersionOf(detail, 2)).toBe(2);
    expect(shownVersionOf(detail, 9)).toBe(3);
    expect(unknownVersion(detail, 9)).toBe(true);
    expect(unknownVersion(detail, 2)).toBe(false);
    expect(unknownVersion(detail, null)).toBe(false);
  });

  it('says which run locked a version, and labels the picker newest first', () => {
    expect(lockTextOf(versions[1])).toBe('locked by run_a');
    expect(lockTextOf(versions[0])).toBe('open for edits');
    expect(versionsNewestFirst(versions).map((v) => versionLabelOf(v, 3))).toEqual([
      'Version 3 (latest) — open for edits',
      'Version 2 — locked by run_a',
      'Version 1 — open for edits',
    ]);
    // The input is left as it was.
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3]);
  });

  it("says the list's locked versions", () => {
    expect(lockedVersionsText([2, 4])).toBe('2, 4');
    expect(lockedVersionsText([])).toBe('none');
  });

  it('diffs the version before the shown one against it by default', () => {
    expect(defaultDiffPair(3)).toEqual({ from: 2, to: 3 });
    expect(defaultDiffPair(1)).toEqual({ from: 1, to: 1 });
  });
});
