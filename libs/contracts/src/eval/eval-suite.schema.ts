import { z } from 'zod';
import { Idea } from '../panel/idea.schema';

/**
 * An evaluation suite (issue 25) as it lies on disk: `evals/<suite>/suite.yaml` and one entry per
 * task. A suite is plain files so users add their own; these schemas are the one description of
 * them, read by the CLI (which sends a suite to the api) and by the suites' own checks.
 *
 * Two kinds of suite, named by how a task is scored:
 * - `hidden_tests`: coding tasks, each a directory `evals/<suite>/<task>/` holding task.yaml,
 *   an optional `starter/` (the repository the run starts from), `hidden/` (the tests the
 *   agents never see: not in a prompt, not in a workspace, until scoring) and `solutions/`
 *   (`good/` and `flawed/`: what the scripted fake models answer, and what the suite's own check
 *   runs the hidden tests against).
 * - `verdict`: panel ideas, each a file `evals/<suite>/<task>.yaml` with a reference judgement.
 */

export const EVAL_SCORERS = ['hidden_tests', 'verdict'] as const;
export const EvalScorer = z.enum(EVAL_SCORERS, { message: `score is one of ${EVAL_SCORERS.join(', ')}` });
export type EvalScorer = z.infer<typeof EvalScorer>;

export const EVAL_DIFFICULTIES = ['easy', 'medium', 'hard'] as const;
export const EvalDifficulty = z.enum(EVAL_DIFFICULTIES, { message: `difficulty is one of ${EVAL_DIFFICULTIES.join(', ')}` });
export type EvalDifficulty = z.infer<typeof EvalDifficulty>;

/** A task's id: its directory (or file) name, also a run's project name, so kept plain. */
export const EvalTaskId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a task id is lowercase letters, digits and dashes (e.g. roman-numerals), at most 63 characters');

/** `evals/<suite>/suite.yaml`. */
export const EvalSuiteFile = z
  .object({
    name: EvalTaskId,
    description: z.string().min(1, 'description says what the suite measures'),
    score: EvalScorer,
  })
  .strict();
export type EvalSuiteFile = z.infer<typeof EvalSuiteFile>;

/** `evals/<suite>/<task>/task.yaml` of a `hidden_tests` suite. */
export const CodingTaskFile = z
  .object({
    id: EvalTaskId,
    difficulty: EvalDifficulty,
    objective: z.string().min(1, 'objective says what to build'),
    requirements: z.array(z.string().min(1)).min(1, 'requirements lists at least one requirement'),
    /** The check the run itself uses (the agents see it): usually the tests the engineer writes. */
    test_command: z.string().min(1).default('python -m pytest -q'),
    /** How the hidden tests are run at scoring, from the scoring copy's root; `hidden/` is copied to `.eval_hidden/`. */
    hidden_command: z.string().min(1).default('python -m pytest -q -p no:cacheprovider .eval_hidden'),
  })
  .strict();
export type CodingTaskFile = z.infer<typeof CodingTaskFile>;

/** Where a scoring copy holds the hidden tests (never a run's workspace). */
export const HIDDEN_TESTS_DIR = '.eval_hidden';

export const REFERENCE_VERDICTS = ['GO', 'ITERATE', 'NO-GO'] as const;

/** `evals/<suite>/<task>.yaml` of a `verdict` suite: an idea and the judgement a good panel comes to. */
export const PanelIdeaTaskFile = z
  .object({
    id: EvalTaskId,
    difficulty: EvalDifficulty,
    idea: Idea,
    reference: z.enum(REFERENCE_VERDICTS, { message: `reference is one of ${REFERENCE_VERDICTS.join(', ')}` }),
    /** Why the reference is what it is, for a reader checking the suite. */
    why: z.string().min(1, 'why says why the reference judgement is right'),
  })
  .strict();
export type PanelIdeaTaskFile = z.infer<typeof PanelIdeaTaskFile>;
