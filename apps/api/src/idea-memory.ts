import type { DataSource } from 'typeorm';
import type { PanelMemory, Worksheet } from '@roundtable/contracts';
import { RunEntity } from '@roundtable/persistence';
import { memoryOfPanel, worksheetDiff } from '@roundtable/workflow';
import { findApiWorkflow } from './workflows/api-workflows';

/**
 * An idea's memory (issue 23): one compact summary per panel that judged one of its versions and
 * ended done, newest first — the verdict, the judges' final scores, the top risks, and which
 * worksheet fields changed since the version the panel before it scored. Read from the runs'
 * own records through each run's workflow (verdictOf), so it is never out of step with them; a
 * later panel on the idea is shown these summaries, never a transcript.
 */
export async function ideaMemory(ds: DataSource, ideaId: string): Promise<PanelMemory[]> {
  const runs = await ds.getRepository(RunEntity).find({ where: { ideaId, status: 'done' }, order: { createdAt: 'ASC', id: 'ASC' } });
  if (!runs.length) return [];
  const sheets = new Map<number, Worksheet>(
    ((await ds.query(`SELECT version, worksheet FROM idea_versions WHERE idea_id = $1`, [ideaId])) as { version: number; worksheet: Worksheet }[]).map((r) => [r.version, r.worksheet]),
  );
  const memories: PanelMemory[] = [];
  let before: number | null = null;
  for (const run of runs) {
    const verdict = findApiWorkflow(run.workflow)?.verdictOf(run) ?? null;
    const version = run.ideaVersion ?? null;
    if (!verdict || version === null) continue;
    const from = before === null ? undefined : sheets.get(before);
    const to = sheets.get(version);
    const changed = from && to ? worksheetDiff(ideaId, { version: before!, worksheet: from }, { version, worksheet: to }).fields.filter((f) => f.changed).map((f) => f.field) : [];
    memories.push(memoryOfPanel({ runId: run.id, version, synthesis: verdict.synthesis, scores: verdict.scores, changed }));
    before = version;
  }
  return memories.reverse();
}
