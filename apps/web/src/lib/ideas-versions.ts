import type { IdeaDetail } from './api-types';

/**
 * How the ideas pages show versions (issue 23): which version a page shows, what each version's
 * lock says, and the list's columns. A version is locked by the first panel run on it (the api
 * records it); later panels on it are listed, not locking.
 */

type VersionRow = IdeaDetail['versions'][number];

/** The version the page shows: the one asked for when the idea has it, else the latest. */
export function shownVersionOf(detail: Pick<IdeaDetail, 'latest_version' | 'versions'>, asked: number | null): number {
  return asked !== null && detail.versions.some((v) => v.version === asked) ? asked : detail.latest_version;
}

/** Whether `asked` names a version the idea does not have (the page says so and shows the latest). */
export const unknownVersion = (detail: Pick<IdeaDetail, 'versions'>, asked: number | null): boolean => asked !== null && !detail.versions.some((v) => v.version === asked);

/** A version's lock as a person reads it: the run that locked it, or that it may still be edited. */
export const lockTextOf = (v: Pick<VersionRow, 'locked'>): string => (v.locked ? `locked by ${v.locked.run_id}` : 'open for edits');

/** The version picker's option: the number, latest or not, and its lock. */
export function versionLabelOf(v: VersionRow, latest: number): string {
  return `Version ${v.version}${v.version === latest ? ' (latest)' : ''} — ${lockTextOf(v)}`;
}

/** The versions, newest first (the picker and the versions list read top down from the latest). */
export const versionsNewestFirst = (versions: readonly VersionRow[]): VersionRow[] => [...versions].sort((a, b) => b.version - a.version);

/** "2, 4", or "none". */
export const lockedVersionsText = (versions: readonly number[]): string => (versions.length ? versions.join(', ') : 'none');

/** The diff's default pair: the version before the shown one against it (1 against 1 when there is only one). */
export function defaultDiffPair(shown: number): { from: number; to: number } {
  return { from: Math.max(1, shown - 1), to: shown };
}
