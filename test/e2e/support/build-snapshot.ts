import { buildStateOf, emptyUsage, type BuildRunState } from '@roundtable/workflow';
import type { RunEntity } from '@roundtable/persistence';
import type { Pipeline } from '@roundtable/testing';
import { BUILD_RUN_STATE, buildRunStateFromRow } from '../../../apps/orchestrator/src/workflows/build/build-run-state.sql';

/** The run row under the entity's property names (what both mappings read). */
const RUN_ROW = `SELECT id, status, stage, round, fix_round AS "fixRound", criteria, unresolved, halt_reason AS "haltReason", config,
                        workspace_path AS "workspacePath", label_counters AS "labelCounters", call_seq AS "callSeq",
                        event_seq AS "eventSeq", workflow_state AS "workflowState", started_at AS "startedAt"
                   FROM runs WHERE id = $1`;

/**
 * A build run's state both ways: from the snapshot its last step left on the run row (what the
 * next step starts from) and rebuilt from its tables (BUILD_RUN_STATE). A snapshot that drifts
 * from the tables would have each step decide on something other than what was recorded.
 */
export async function buildStateBothWays(pipeline: Pipeline, runId: string): Promise<{ snapshot: BuildRunState; tables: BuildRunState }> {
  const [run] = await pipeline.sql<RunEntity>(RUN_ROW, [runId]);
  const [row] = await pipeline.sql<Record<string, unknown>>(BUILD_RUN_STATE.text, BUILD_RUN_STATE.params(runId));
  const usage = emptyUsage();
  return {
    snapshot: { ...buildStateOf(run, usage), usage },
    tables: { ...buildRunStateFromRow(run, row, new Date()), usage },
  };
}
