import { parse as parseYaml } from 'yaml';
import type { Built } from './act-requests';

/**
 * "Draft the experiment" (issue 24): POST /v1/ideas/:id/experiment with a done panel and the rest
 * of an experiment file. The api writes what the idea gives — draft_from (the idea's title and the
 * panel's recommended experiment), the commit (the repository's HEAD) — and the run's proposer
 * drafts the preregistration a person then approves at its gate; the rest is the person's, typed
 * as YAML and prefilled from examples/experiment-backtest/experiment-kill.yaml without its
 * preregistration (and with a proposer, which a draft needs).
 */

/** The fields the idea and its panel give: the api refuses them in the file. */
export const GIVEN_BY_THE_IDEA = ['preregistration', 'draft_from', 'commit', 'panel_run_id'] as const;

/**
 * examples/experiment-backtest/experiment-kill.yaml without its preregistration, with a proposer.
 * The repository is the person's to name (the api pins its HEAD); replay cassettes are paths under
 * the operator's cassette roots.
 */
export const EXPERIMENT_TEMPLATE = `# The experiment's settings; the preregistration is drafted by the proposer from the panel's
# recommended experiment, and waits for a person's approval at the run's "preregistration" gate.
# repo: a git repository the api can read (an absolute path); the draft is pinned to its HEAD.
repo: /path/to/a/git/repository
domain: trading
proposer:
  provider: replay_a
  model: claude-sonnet-4-5
interpreter:
  provider: replay_a
  model: claude-sonnet-4-5
critic:
  provider: replay_b
  model: gpt-5
providers:
  replay_a:
    type: replay
    cassette: experiment-backtest/cassette-kill.yaml
  replay_b:
    type: replay
    cassette: experiment-backtest/cassette-kill.yaml
budget:
  max_calls: 8
  max_tokens: 200000
  max_cost_usd: 2.0
  max_seconds: 600
`;

/** The body from the form: the experiment file as YAML (a mapping, without what the idea gives) and the chosen panel run. */
export function ideaExperimentBody(panelRunId: string, fileYaml: string): Built<Record<string, unknown>> {
  const issues: Record<string, string> = {};
  if (!panelRunId) issues.panel_run_id = 'panel_run_id must name a done panel on this idea';
  let file: Record<string, unknown> | null = null;
  try {
    const doc: unknown = parseYaml(fileYaml);
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) issues.file = 'the experiment file must be a YAML mapping: repo, providers, proposer, interpreter, critic, budget, domain';
    else file = doc as Record<string, unknown>;
  } catch (e) {
    issues.file = `the experiment file is not valid YAML: ${(e as Error).message.split('\n')[0]}`;
  }
  const given = file ? GIVEN_BY_THE_IDEA.filter((k) => k in file!) : [];
  if (given.length) issues.file = `leave out ${given.join(', ')}: the idea and its panel give ${given.length === 1 ? 'it' : 'them'} (the proposer drafts the preregistration, the repository's HEAD is the commit)`;
  if (Object.keys(issues).length || !file) return { ok: false, issues };
  return { ok: true, body: { ...file, panel_run_id: panelRunId } };
}

/** The panels an experiment may be drafted from: every done panel the idea remembers, an ITERATE's first (it recommends one), else newest first. */
export function experimentCandidates<M extends { run_id: string; recommendation: string }>(memory: readonly M[]): M[] {
  return [...memory.filter((m) => m.recommendation === 'ITERATE'), ...memory.filter((m) => m.recommendation !== 'ITERATE')];
}
