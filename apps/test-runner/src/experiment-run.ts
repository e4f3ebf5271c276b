import { constants } from 'node:fs';
import { lstat, mkdir, readFile, rm } from 'node:fs/promises';
import * as path from 'node:path';
import type { DataSource } from 'typeorm';
import type { ExperimentOpRequest } from '@roundtable/contracts';
import { ExperimentEntity, preregistrationHash } from '@roundtable/persistence';
import { SANDBOX_WORKDIR } from '@roundtable/sandbox';
import { ExperimentRefusedError } from './experiment-refused.error';

/** The metrics file, relative to the experiment's worktree (`.roundtable/` is never committed: CACHE_EXCLUDES). */
export const METRICS_FILE = '.roundtable/metrics.json';
/** A metrics file larger than this is not read. */
const MAX_METRICS_BYTES = 1024 * 1024;

const short = (hash: string) => `${hash.slice(0, 12)}…`;

/**
 * The experiment row the op names, if it may be run: it exists, its stored preregistration still
 * hashes to the hash it was locked with, that is the hash the op was queued for, and it has no
 * result yet. Anything else is an ExperimentRefusedError (recorded on the op, never retried).
 */
export async function lockedExperiment(ds: DataSource, request: ExperimentOpRequest): Promise<ExperimentEntity> {
  const id = request.experiment_id;
  const row = await ds.getRepository(ExperimentEntity).findOneBy({ id });
  if (!row) throw new ExperimentRefusedError(id, `experiment ${id} does not exist; refused`);
  if (row.status === 'draft' || row.prereg === null || row.preregHash === null) {
    throw new ExperimentRefusedError(id, `experiment ${id} is a draft nobody approved yet: nothing is locked, so nothing runs; refused`);
  }
  if (preregistrationHash(row.prereg) !== row.preregHash) {
    throw new ExperimentRefusedError(id, `the stored preregistration of ${id} no longer hashes to its locked hash ${short(row.preregHash)}: it was altered after it was locked; refused`);
  }
  if (row.preregHash !== request.prereg_hash) {
    throw new ExperimentRefusedError(id, `the op was queued for preregistration ${short(request.prereg_hash)} but experiment ${id} is locked with ${short(row.preregHash)}; refused`);
  }
  if (row.result !== null && row.result !== undefined) throw new ExperimentRefusedError(id, `experiment ${id} already has a result; a second run is refused`);
  return row;
}

/**
 * Where the command writes its metrics, as the command sees it: inside the container the
 * worktree is mounted at SANDBOX_WORKDIR; a process run sees the worktree itself.
 */
export function metricsPathFor(runnerKind: string, worktree: string): string {
  return runnerKind === 'docker' ? path.posix.join(SANDBOX_WORKDIR, METRICS_FILE) : path.join(worktree, METRICS_FILE);
}

/**
 * A fresh `.roundtable/` in the worktree: a metrics file left by an earlier attempt must not
 * pass for this run's. rm on a link removes the link, never what it points to.
 */
export async function freshMetricsDirectory(worktree: string): Promise<void> {
  const dir = path.join(worktree, path.dirname(METRICS_FILE));
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
}

/**
 * The metrics file's text after the run: null when it was not written; `problem` when something
 * is there that is not read (a link, a FIFO, a directory, too large). Read only once the command
 * is dead (container removed, process group killed), without following links.
 */
export async function readMetricsFile(worktree: string, shownAs: string): Promise<{ text: string | null; problem: string | null }> {
  const dir = path.join(worktree, path.dirname(METRICS_FILE));
  const file = path.join(worktree, METRICS_FILE);
  const dirStat = await lstat(dir).catch(() => null);
  if (!dirStat) return { text: null, problem: null };
  if (!dirStat.isDirectory()) return { text: null, problem: `${path.posix.dirname(shownAs)} is not a directory (not read)` };
  const st = await lstat(file).catch(() => null);
  if (!st) return { text: null, problem: null };
  if (!st.isFile()) return { text: null, problem: `${shownAs} is not a regular file (not read)` };
  if (st.size > MAX_METRICS_BYTES) return { text: null, problem: `${shownAs} is larger than ${MAX_METRICS_BYTES} bytes (not read)` };
  return { text: await readFile(file, { encoding: 'utf8', flag: constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK }), problem: null };
}
