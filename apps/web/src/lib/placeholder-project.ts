/**
 * What the empty editor shows: a whole project the api takes as it is, the build demo with its
 * cassette named relative to the operator's cassette roots (the local policy's root is examples/).
 */
export const PLACEHOLDER_PROJECT = `project: dd-demo
objective: >-
  Implement max_drawdown(equity: list[float]) -> float in dd.py, returning the
  largest peak-to-trough decline as a positive fraction (0.0 if none), with pytest tests.
requirements:
  - "Returns 0.0 for monotonically increasing or empty series"
  - "Handles a series that ends at its trough"
  - "Pure Python, no third-party dependencies"
autonomy: 2
budget: { max_rounds: 3, max_fix_rounds: 1, max_calls: 16, max_tokens: 200000, max_cost_usd: 5.00, max_seconds: 900 }
providers:
  replay: { type: replay, cassette: dd-demo/cassette.yaml }
agents:
  proposer:    { provider: replay, model: claude-sonnet-4-5 }
  critic:      { provider: replay, model: grok-4 }
  reviser:     { provider: replay, model: claude-sonnet-4-5 }
  engineer:    { provider: replay, model: gpt-5-codex }
  validator:   { provider: replay, model: "qwen3:30b-a3b" }
  synthesizer: { provider: replay, model: claude-sonnet-4-5 }
on_unresolved: implement
test_command: python -m pytest -q`;
