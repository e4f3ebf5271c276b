import { CommandContext } from '../command-context';
import { UsageError } from '../usage-error';
import { evalPanelGrader } from './eval-grader';
import { followEval, runEvalSuite } from './eval-suite';

/**
 * `eval`: three things under one name. `eval <suite> --configs …` runs a suite of evals/ through
 * the services (eval-suite.ts); `eval <eval id>` follows one already started; `eval panel
 * --grader <provider>` grades the panel golden set with a real model from this machine
 * (eval-grader.ts).
 */
export async function evalCommand(ctx: CommandContext): Promise<number> {
  const target = ctx.cli.args.suite;
  if (ctx.cli.options.grader !== undefined) {
    if (target !== 'panel') throw new UsageError(`--grader grades the panel golden set: eval panel --grader <provider> (got "${target}")`, 'eval');
    return evalPanelGrader(ctx);
  }
  if (/^eval_[0-9a-f]+$/.test(target)) return followEval(ctx, target);
  return runEvalSuite(ctx);
}
