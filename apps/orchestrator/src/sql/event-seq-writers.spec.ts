import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative } from 'path';

/**
 * runs.event_seq numbers a run's events, so two writers would hand out one sequence twice or
 * leave a gap. It has one writer once a run exists, the orchestrator's step (its run UPDATE moves
 * event_seq past the step's events, under the run lock), and one before: the api's submission,
 * which appends run_created in the transaction that inserts the run (appendRunEvents). The
 * reconciler halts through a step (a run.halt job), never by writing the row itself.
 */

const ROOT = join(__dirname, '../../../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sources(path);
    return /\.ts$/.test(name) && !/\.(spec|int-spec|e2e-spec|fixture)\.ts$/.test(name) ? [path] : [];
  });
}

const files = [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))].filter((f) => !f.includes('/migrations/'));
const writesEventSeq = /event_seq\s*=/;

describe('one writer of runs.event_seq', () => {
  it('only the step (the build and panel run UPDATEs) and the event log the api appends run_created with write it', () => {
    const writers = files.filter((f) => writesEventSeq.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));
    expect(writers.sort()).toEqual([
      'apps/orchestrator/src/sql/snapshot-run-after-step.sql.ts',
      'apps/orchestrator/src/workflows/build/build-rows.sql.ts',
      'libs/events/src/run-event-log.ts',
    ]);
  });

  it('the event log that bumps it is called only by the api when it creates a run', () => {
    const callers = files.filter((f) => /\bappendRunEvents\(/.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));
    expect(callers.sort()).toEqual(['apps/api/src/run-submission.service.ts', 'libs/events/src/run-event-log.ts']);
  });

  it('every statement that inserts run events writes their chain hash (issue 26): a writer that forgot would break every later verify', () => {
    const inserts = files.flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/INSERT INTO run_events\s*\(([^)]*)\)/g)].map((m) => [relative(ROOT, f), m[1].includes('hash')] as const),
    );
    expect(inserts.length).toBeGreaterThanOrEqual(2);
    expect(inserts.filter(([, hashed]) => !hashed)).toEqual([]);
  });

  it('the check would see a planted writer', () => {
    expect(writesEventSeq.test('UPDATE runs SET status = $2, event_seq = event_seq + 2 WHERE id = $1')).toBe(true);
  });
});
