import { z } from 'zod';

/**
 * The checklist every trading experiment's interpretation and review answer, item by item
 * (issue 24, `domain: trading`). Backtests fail in well-known ways — look-ahead, survivorship,
 * costs, many tries — and a reviewer asked only for a summary forgets some of them; a schema with
 * one required field per item cannot be answered without each.
 */
export const TRADING_CHECKLIST = [
  { key: 'look_ahead_bias', question: 'Does any signal, filter or label use information not available at the time of the trade?' },
  { key: 'survivorship_bias', question: 'Does the universe include the instruments that were delisted, merged or went bankrupt?' },
  { key: 'train_test_leakage', question: 'Is anything fitted, scaled or selected on data that is later used to test (overlapping windows, full-sample normalisation)?' },
  { key: 'transaction_costs_and_slippage', question: 'Are commissions, spreads, slippage and borrow costs charged, at realistic levels for the turnover?' },
  { key: 'sample_size', question: 'Are there enough trades and independent periods for the metrics to mean something?' },
  { key: 'multiple_testing_deflated_sharpe', question: 'How many variants were tried, and does the Sharpe survive deflation for that many trials?' },
  { key: 'regime_dependence', question: 'Does the result hold across market regimes (bull, bear, high and low volatility), or come from one period?' },
  { key: 'out_of_sample_split', question: 'Is there a true out-of-sample period, untouched while the strategy was designed, and how long is it?' },
  { key: 'overfitting_parameter_count', question: 'How many free parameters were tuned, relative to the number of trades and periods?' },
  { key: 'data_snooping_reuse', question: 'Has this dataset been used before to form or test related ideas, so the test is not fresh?' },
  { key: 'liquidity_and_capacity', question: 'Could the positions be traded at the assumed size without moving the price, and what capacity does that leave?' },
  { key: 'execution_assumptions', question: 'Are fills realistic (at the next open rather than the signal bar\'s close, no trading at prices that were never available)?' },
  { key: 'benchmark_choice', question: 'Is the result compared with a fair benchmark (buy-and-hold, the factor it may just be re-labelling)?' },
  { key: 'risk_and_drawdown', question: 'Are drawdowns, tail risk, leverage and exposure reported and acceptable, not only the return?' },
  { key: 'data_quality', question: 'Is the data clean: corporate actions adjusted, bad ticks and gaps handled, timestamps and time zones right?' },
] as const;

export type TradingChecklistKey = (typeof TRADING_CHECKLIST)[number]['key'];
export const TRADING_CHECKLIST_KEYS = TRADING_CHECKLIST.map((i) => i.key) as TradingChecklistKey[];

export const ChecklistStatus = z.enum(['checked', 'not_applicable', 'problem'], {
  error: 'status is checked, not_applicable or problem',
});
export type ChecklistStatus = z.infer<typeof ChecklistStatus>;

const ANSWERED = 'every checklist item is answered: checked, not_applicable or problem, with evidence';

// A missing item is the likeliest failure of a long checklist: the issue's path names the item,
// and the message says what an answer is, so the repair call can supply it.
const missing = (key: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `Required — ${ANSWERED}` : `${key} is an object {status, evidence}`;

const fields = {
  status: ChecklistStatus,
  evidence: z.string().min(1, 'evidence says what was looked at and what it showed'),
};

function checklistItem(key: string) {
  return z.object(fields, { error: missing(key) }).strict();
}

function trialsItem(key: string) {
  return z
    .object(
      {
        ...fields,
        // The deflated Sharpe needs the number of trials; without it "multiple testing" is only a word.
        n_trials: z
          .number({ error: 'n_trials counts every variant tried, this one included (1 or more)' })
          .int('n_trials is a whole number')
          .min(1, 'n_trials counts every variant tried, this one included (1 or more)'),
      },
      { error: missing(key) },
    )
    .strict();
}

type ChecklistShape = { [K in Exclude<TradingChecklistKey, 'multiple_testing_deflated_sharpe'>]: ReturnType<typeof checklistItem> } & {
  multiple_testing_deflated_sharpe: ReturnType<typeof trialsItem>;
};

const shape = Object.fromEntries(
  TRADING_CHECKLIST.map(({ key }) => [key, key === 'multiple_testing_deflated_sharpe' ? trialsItem(key) : checklistItem(key)]),
) as ChecklistShape;

/** One answer per checklist item, none skipped and none invented (strict). */
export const TradingCritique = z.object(shape).strict();
export type TradingCritique = z.infer<typeof TradingCritique>;
