import { ArtifactEntity, type RunEntity } from '@roundtable/persistence';
import type { ImplementationRecord } from '@roundtable/workflow';
import { ApiError } from './api-error';
import type { RunRecords } from '@roundtable/contracts';
import { apiWorkflowOf } from './workflows/api-workflows';
import { buildStateOfRun } from './workflows/build-records';
import type { ReadDb } from './read-db';
import type { RunQueryService } from './run-query.service';
import { normalizedPath } from './workspace-file-path';

/** A file as the run last wrote it: the implementation whose round wrote it, and its whole content. */
export interface WrittenFile {
  content: string;
  implementation: string;
}

/**
 * What a run recorded, read back for its page: the records of its snapshot, the run branch's
 * diff and the files it wrote. Everything comes from the database (the snapshot on the run row,
 * the diff's artifacts row): the workspace on disk may be gone, or on another machine, and is
 * never read, so no path a client sends can reach a file system. Pure reads: the run is located
 * as RunQueryService locates it (the replica, or the primary for a run it does not have yet), and an
 * artifact is read from the replica too, or from the primary when the replica has not replayed it
 * yet (a client told live that the run is done asks for its bundle at once).
 */
export class RunRecordsService {
  constructor(
    private readonly db: ReadDb,
    private readonly runs: RunQueryService,
  ) {}

  async records(id: string): Promise<RunRecords> {
    const run = await this.runs.runOrThrow(id);
    return apiWorkflowOf(run).records(run);
  }

  /**
   * The run branch's whole diff: the diff the test-runner stored with the last commit it made
   * (each commit's diff is cumulative, every round against the base). A diff over the
   * test-runner's 1 MiB cap was stored cut, and ends with a line that says so.
   */
  async diff(id: string): Promise<string> {
    const run = await this.buildRunOrThrow(id, 'diff');
    const committed = buildStateOfRun(run).implementations.filter((i) => i.diff);
    const last = committed[committed.length - 1]?.diff;
    const artifact = last ? await this.db.orPrimary((ds) => ds.getRepository(ArtifactEntity).findOneBy({ id: last.artifactId, runId: id, kind: 'diff' })) : null;
    if (!artifact) {
      throw ApiError.notFound('no_diff', `run ${id} has applied no implementation to a git workspace, so it has no diff (GET /v1/runs/${id}/records lists its implementations)`);
    }
    return artifact.content;
  }

  /**
   * The run branch as a git bundle or a patch, for a run that could not be merged (a greenfield
   * run, a copy of a plain directory): the bytes the test-runner's export op stored (issue 21).
   */
  async exported(id: string, kind: 'bundle' | 'patch'): Promise<{ bytes: Buffer; name: string }> {
    await this.buildRunOrThrow(id, 'files');
    const artifact = await this.db.orPrimary((ds) => ds.getRepository(ArtifactEntity).findOne({ where: { runId: id, kind }, order: { createdAt: 'DESC' } }));
    if (!artifact) {
      throw ApiError.notFound(
        `no_${kind}`,
        `run ${id} has no ${kind}: only a done run on a greenfield or copied workspace offers its branch as a bundle and a patch (a run on a git repository leaves branch roundtable/${id} there, and merges it on approval)`,
      );
    }
    return { bytes: Buffer.from(artifact.content, 'base64'), name: artifact.path.split('/').pop() ?? `${id}.${kind}` };
  }

  /** `path` (already checked and normalized) as the run last wrote it; 404 when it never wrote it, or deleted it after. */
  async file(id: string, path: string): Promise<WrittenFile> {
    const run = await this.buildRunOrThrow(id, 'files');
    const written = writtenFiles(buildStateOfRun(run).implementations);
    const file = written.get(path);
    if (file === undefined) {
      throw ApiError.notFound('file_not_found', `run ${id} never wrote ${JSON.stringify(path)} (GET /v1/runs/${id}/records lists the files each implementation wrote)`);
    }
    if (file.deletedBy !== null) {
      throw ApiError.notFound('file_deleted', `run ${id} wrote ${JSON.stringify(path)} in ${file.implementation} and deleted it in ${file.deletedBy}`);
    }
    return { content: file.content, implementation: file.implementation };
  }

  /** The run, if its workflow writes files (only the build's records say which, so it is read as a build). */
  private async buildRunOrThrow(id: string, what: 'diff' | 'files'): Promise<RunEntity> {
    const run = await this.runs.runOrThrow(id);
    const { noFiles } = apiWorkflowOf(run);
    if (noFiles === null) return run;
    throw new ApiError(409, { error: `${what}_unavailable`, message: `run ${id} is a ${run.workflow} run; ${noFiles}, so it has no ${what}` });
  }
}

/**
 * Every path the applied implementations wrote, oldest round first, so a later round's write
 * (or deletion) wins. Rejected implementations changed nothing in the workspace and are left out.
 */
function writtenFiles(impls: readonly ImplementationRecord[]): Map<string, WrittenFile & { deletedBy: string | null }> {
  const files = new Map<string, WrittenFile & { deletedBy: string | null }>();
  for (const impl of impls) {
    if (impl.status !== 'applied') continue;
    for (const f of impl.body.files) files.set(normalizedPath(f.path), { content: f.content, implementation: impl.label, deletedBy: null });
    for (const d of impl.body.deleted ?? []) {
      const earlier = files.get(normalizedPath(d));
      if (earlier) earlier.deletedBy = impl.label;
    }
  }
  return files;
}
