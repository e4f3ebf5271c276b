import type { EvalDifficulty, LoadedCodingSuite, LoadedCodingTask } from '@roundtable/contracts';
import type { FakeScriptEntryInput, FakeScriptInput } from './fake-llm/fake-script';

/**
 * The fake LLM server's script for a model playing a whole `hidden_tests` suite (issue 25): one
 * engineer entry per task, picked by a substring of its objective, answering with the task's
 * `solutions/` files, and one generic entry per other build role so a team pipeline completes.
 *
 * A `strong` model answers every task with its good solution; a `weak` one only the easy tasks,
 * and the flawed solution (its own tests pass, the hidden ones do not) on medium and hard tasks,
 * so an eval over both has a known score to find.
 *
 * Every entry forbids the hidden tests' sentinel, and a task's engineer entry also every hidden
 * test function name of that task: a prompt that shows any of them fails the call, so a leak of
 * the hidden tests into a prompt is a failing eval, not a better score.
 */

export type EvalFakeModel = 'strong' | 'weak';

/** The first line of every hidden test file (evals/README.md). */
export const HIDDEN_SENTINEL_PREFIX = '# eval-hidden:';
/** Hidden test functions are named so they can be forbidden in prompts. */
export const HIDDEN_TEST_PREFIX = 'test_hidden_';

/** Entries are reused across runs of one eval; 1000 is "every run of the suite". */
const TIMES = 1000;

/** Which solution a model answers a task of this difficulty with. */
export function evalFakeSolution(model: EvalFakeModel, difficulty: EvalDifficulty): 'good' | 'flawed' {
  return model === 'strong' || difficulty === 'easy' ? 'good' : 'flawed';
}

/** A task's sentinel line (`# eval-hidden: <id>`, the first line of its hidden files) and hidden test function names: what no prompt may show. */
export function hiddenMarkers(task: LoadedCodingTask): { sentinel: string; testNames: string[] } {
  const sentinel = `${HIDDEN_SENTINEL_PREFIX} ${task.task.id}`;
  if (!task.hidden.some((file) => file.content.split('\n', 1)[0].trim() === sentinel)) {
    throw new Error(`eval task ${task.task.id}: no hidden file starts with "${sentinel}"`);
  }
  const testNames = new Set<string>();
  for (const file of task.hidden) {
    for (const m of file.content.matchAll(new RegExp(`^\\s*(?:async\\s+)?def\\s+(${HIDDEN_TEST_PREFIX}\\w+)`, 'gm'))) testNames.add(m[1]);
  }
  return { sentinel, testNames: [...testNames].sort() };
}

/** Characters a prompt may render differently (quoted, escaped); a match avoids them. */
const UNSAFE_IN_MATCH = /["'<>&\\]/;

/**
 * For each objective, its shortest run of whole words (at least 16 characters, from the earliest
 * start) that no other objective contains: what picks the task's engineer entry. Throws when an
 * objective has none (it is contained in another).
 */
export function uniqueObjectiveMatches(objectives: { id: string; objective: string }[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const { id, objective } of objectives) {
    const others = objectives.filter((o) => o.id !== id).map((o) => o.objective);
    const words = [...objective.matchAll(/\S+/g)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
    let found: string | null = null;
    for (let len = 1; len <= words.length && !found; len++) {
      for (let s = 0; s + len <= words.length && !found; s++) {
        const candidate = objective.slice(words[s].start, words[s + len - 1].end);
        if (candidate.length < 16 || UNSAFE_IN_MATCH.test(candidate)) continue;
        if (!others.some((o) => o.includes(candidate))) found = candidate;
      }
    }
    if (!found) throw new Error(`eval task ${id}: its objective has no substring that is unique in the suite, so no fake reply can be matched to it`);
    out.set(id, found);
  }
  return out;
}

function engineerEntry(task: LoadedCodingTask, model: EvalFakeModel, match: string): FakeScriptEntryInput {
  if (!task.solutions) throw new Error(`eval task ${task.task.id}: no solutions/ to answer with (evalFakeScript needs solutions/good and solutions/flawed)`);
  const kind = evalFakeSolution(model, task.task.difficulty);
  const { sentinel, testNames } = hiddenMarkers(task);
  return {
    role: 'engineer',
    match,
    times: TIMES,
    forbids: [sentinel, ...testNames],
    reply: {
      proposal_id: 'P1',
      files: Object.entries(task.solutions[kind]).map(([path, content]) => ({ path, content })),
      test_command: task.task.test_command,
      notes: `${task.task.id}: the ${kind} solution (fake ${model} model).`,
      assumptions: [],
      known_gaps: [],
    },
  };
}

/** The other build roles, one reply each, valid whatever the task (shapes as in examples/dd-demo/cassette.yaml). */
function genericEntries(): FakeScriptEntryInput[] {
  const forbids = [HIDDEN_SENTINEL_PREFIX];
  const review = (id: string) => ({
    implementation_id: id,
    verdict: 'ACCEPT',
    requirement_checks: [
      { requirement: 'The objective is implemented', satisfied: true, evidence: 'the test command passed (tests in test_*.py)' },
    ],
    problems: [],
    confidence: 0.6,
  });
  const proposal = {
    proposal_id: 'P1',
    claim: 'Implement the objective directly in the named module, with pytest tests for every requirement.',
    approach: 'Write the functions the objective names with the exact signatures, handle each stated edge case explicitly, and add one test per requirement.',
    assumptions: ['The objective names the module file and the signatures to keep.'],
    evidence: ['The requirements list the edge cases.'],
    risks: ['An edge case the requirements imply but do not spell out.'],
    tests_required: ['One test per requirement, including the stated edge cases.'],
    responses_to_criticism: [],
    confidence: 0.7,
  };
  return [
    { role: 'proposer', times: TIMES, forbids, reply: proposal },
    {
      role: 'critic',
      times: TIMES,
      forbids,
      reply: {
        proposal_id: 'P1',
        verdict: 'ACCEPT',
        problems: [],
        counterarguments: ['Checked that the approach names the module and signatures from the objective and a test per requirement.'],
        tests_required: ['One test per requirement.'],
        confidence: 0.7,
      },
    },
    { role: 'reviser', times: TIMES, forbids, reply: { ...proposal, proposal_id: 'P2', revision_of: 'P1' } },
    { role: 'validator', times: TIMES, forbids, reply: review('I1') },
    { role: 'reviewer', times: TIMES, forbids, reply: review('I1') },
    {
      role: 'synthesizer',
      times: TIMES,
      forbids,
      reply: {
        what_was_built: 'The module the objective names, with pytest tests.',
        test_summary: 'The test command passed.',
        disagreements: [],
        remaining_risks: [],
        recommended_next_experiment: null,
        overall_verdict: 'ACCEPT',
        confidence: 0.6,
      },
    },
  ];
}

/** The script for the fake LLM server playing `model` over every task of a `hidden_tests` suite (narrow a loaded suite by its `score`). */
export function evalFakeScript(suite: LoadedCodingSuite, model: EvalFakeModel): FakeScriptInput {
  const matches = uniqueObjectiveMatches(suite.tasks.map((t) => ({ id: t.task.id, objective: t.task.objective })));
  return { replies: [...suite.tasks.map((t) => engineerEntry(t, model, matches.get(t.task.id)!)), ...genericEntries()] };
}

/**
 * The same model as a replay cassette (the offline eval of examples/eval-offline/): the fake
 * script's entries without `times` — a replay provider answers each run from the top, so one
 * entry per role, and per task for the engineer (by `match`), answers every run.
 */
export function evalReplayCassette(suite: LoadedCodingSuite, model: EvalFakeModel): { replies: Omit<FakeScriptEntryInput, 'times'>[] } {
  return { replies: evalFakeScript(suite, model).replies.map(({ times: _times, ...entry }) => entry) };
}
