import { exportHash, RUN_EXPORT_FORMAT, sha256Hex, type RecordVerdict, type RunExport } from '@roundtable/contracts';
import { readRunRecordConsistently, verifyRunRecord } from '@roundtable/events';
import { ApiError } from './api-error';
import type { ReadDb } from './read-db';
import type { RunQueryService } from './run-query.service';

/**
 * The run's tamper-evident record (issue 26): `verify` recomputes the hash chain from the rows and
 * names the first thing that does not match; `export` is the record as one file that
 * `roundtable verify --file` checks offline. Reads only; the orchestrator writes the chain. On the
 * replica when there is one: each read is one REPEATABLE READ snapshot (allowed on a hot standby),
 * so a record read there is the record as of a moment ago, whole — a chain whose head and events
 * agree — and a run the replica does not have yet is read from the primary.
 */
export class RunRecordService {
  constructor(
    private readonly db: ReadDb,
    private readonly runs: RunQueryService,
    /** AUDIT_PUBLIC_KEY: the key a signature must be made with; null: the one it carries. */
    private readonly trustedKey: string | null = null,
  ) {}

  async verify(id: string): Promise<RecordVerdict> {
    // A run may rightly be unsigned (still running, or ended before the operator signed): `absent`, not a failure.
    const verdict = await this.db.orPrimary((ds) => verifyRunRecord(ds, id, this.trustedKey ? { publicKey: this.trustedKey, requireSignature: false } : {}));
    if (!verdict) throw ApiError.notFound('run_not_found', `no run ${id}`);
    return verdict;
  }

  async export(id: string): Promise<RunExport> {
    const record = await this.db.orPrimary((ds) => readRunRecordConsistently(ds, id));
    if (!record) throw ApiError.notFound('run_not_found', `no run ${id}`);
    const [run, report] = await Promise.all([this.runs.get(id), this.runs.report(id)]);
    // As JSON will carry it (a Date as its ISO text), so the export's own hash is over what the file holds.
    const file = JSON.parse(
      JSON.stringify({
        format: RUN_EXPORT_FORMAT,
        exported_at: new Date().toISOString(),
        run,
        ...record,
        artifacts: [{ name: 'report.md', media_type: 'text/markdown', sha256: sha256Hex(report), content: report }],
      }),
    ) as Omit<RunExport, 'export_sha256'>;
    return { ...file, export_sha256: exportHash(file) };
  }
}
