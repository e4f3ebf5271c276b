import path from 'node:path';
import type { Pool } from 'pg';
import { TERMINAL_RUN_STATUSES } from '@roundtable/contracts';
import { loadProjectFile } from '../apps/cli/src/project-file';

const REPO = path.resolve(__dirname, '..');
export const DEMO_PROJECT = path.join(REPO, 'examples/dd-demo/project.yaml');

/**
 * The dd-demo project as a client posts it (read by the CLI's own reader: `${VAR}` expanded
 * from this shell, cassette path absolute), with a budget no run of the bench can reach and a
 * trivial test command, so that neither a halt nor pytest's start-up is what gets measured.
 * The command still runs as a subprocess in the workspace.
 */
export function benchProjectConfig(testCommand: string): Record<string, unknown> {
  const cfg = loadProjectFile(DEMO_PROJECT, REPO, process.env) as Record<string, unknown> & { budget: Record<string, number> };
  cfg.budget = { ...cfg.budget, max_calls: 1000, max_tokens: 100_000_000, max_cost_usd: 100_000, max_seconds: 86_400 };
  cfg.test_command = testCommand;
  // The project's default (docker) unless asked: `process` takes the container's start-up out of the figures.
  if (process.env.BENCH_SANDBOX_RUNNER) cfg.sandbox = { runner: process.env.BENCH_SANDBOX_RUNNER };
  return cfg;
}

export async function submitRun(api: string, config: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${api}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(config),
  });
  const body = (await res.json()) as { id?: string };
  if (res.status !== 202 || !body.id) throw new Error(`POST /v1/runs answered ${res.status}: ${JSON.stringify(body)}`);
  return body.id;
}

/**
 * Waits until every run is in a terminal status. Polls slowly on purpose: the figures come
 * from row timestamps, not from this loop, and a busy poll would take CPU from the services.
 */
export async function waitForRuns(pg: Pool, ids: string[], timeoutMs: number, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pg.query<{ n: string }>(`SELECT count(*) AS n FROM runs WHERE id = ANY($1) AND status = ANY($2)`, [
      ids,
      TERMINAL_RUN_STATUSES,
    ]);
    if (Number(rows[0].n) === ids.length) return;
    if (Date.now() > deadline) throw new Error(`${ids.length - Number(rows[0].n)} of ${ids.length} runs did not finish within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface RunOutcome {
  id: string;
  status: string;
  verdict: string | null;
  haltReason: string | null;
  calls: string[];
}

/** What the API says about each run, and the calls it made (role:label per agent_calls row, in order). */
export async function runOutcomes(api: string, pg: Pool, ids: string[]): Promise<RunOutcome[]> {
  const { rows } = await pg.query<{ run_id: string; calls: string[] }>(
    `SELECT run_id, array_agg(role || ':' || label || CASE WHEN status = 'completed' AND valid THEN '' ELSE '(' || status || ')' END ORDER BY seq) AS calls
       FROM agent_calls WHERE run_id = ANY($1) GROUP BY run_id`,
    [ids],
  );
  const callsOf = new Map(rows.map((r) => [r.run_id, r.calls]));
  return Promise.all(
    ids.map(async (id) => {
      const res = await fetch(`${api}/v1/runs/${id}`);
      if (!res.ok) throw new Error(`GET /v1/runs/${id} answered ${res.status}`);
      const run = (await res.json()) as { status: string; verdict: string | null; halt_reason: string | null };
      return { id, status: run.status, verdict: run.verdict, haltReason: run.halt_reason, calls: callsOf.get(id) ?? [] };
    }),
  );
}

export interface RunMeasurement {
  /** Per agent call, in ms: BEGIN of the step that queued it → BEGIN of the step that consumed its reply. */
  samples: number[];
  calls: number;
  /** Orchestrator steps applied (every event: run.start, agent.done, workspace.done, tests.done). */
  orchestratorSteps: number;
  /** Σ over runs of (created → finished), ms: the wall time of runs made one after another. */
  sumRunMs: number;
  /** First created → last finished, ms: the wall time of runs made together. */
  spanMs: number;
  /** Where a call's time goes, per call, ms (Postgres and service clocks of one machine). */
  parts: { queuedToStarted: number[]; startedToFinished: number[]; finishedToConsumed: number[] };
}

export async function measureRuns(pg: Pool, ids: string[]): Promise<RunMeasurement> {
  const ms = (a: string, b: string) => `extract(epoch FROM ${b} - ${a}) * 1000`;
  const calls = await pg.query<Record<'total' | 'q2s' | 's2f' | 'f2c', string>>(
    `SELECT ${ms('c.created_at', 'a.created_at')} AS total,
            ${ms('c.created_at', 'c.started_at')} AS q2s,
            ${ms('c.started_at', 'c.finished_at')} AS s2f,
            ${ms('c.finished_at', 'a.created_at')} AS f2c
       FROM agent_calls c
       JOIN applied_events a ON a.run_id = c.run_id AND a.event_key = 'agent.done:' || c.id
      WHERE c.run_id = ANY($1)`,
    [ids],
  );
  const runs = await pg.query<{ sum_ms: string; span_ms: string; steps: string }>(
    `SELECT sum(${ms('r.created_at', 'r.finished_at')}) AS sum_ms,
            ${ms('min(r.created_at)', 'max(r.finished_at)')} AS span_ms,
            (SELECT count(*) FROM applied_events e WHERE e.run_id = ANY($1)) AS steps
       FROM runs r WHERE r.id = ANY($1)`,
    [ids],
  );
  const col = (k: 'total' | 'q2s' | 's2f' | 'f2c') => calls.rows.map((r) => Number(r[k]));
  return {
    samples: col('total'),
    calls: calls.rows.length,
    orchestratorSteps: Number(runs.rows[0].steps),
    sumRunMs: Number(runs.rows[0].sum_ms),
    spanMs: Number(runs.rows[0].span_ms),
    parts: { queuedToStarted: col('q2s'), startedToFinished: col('s2f'), finishedToConsumed: col('f2c') },
  };
}
