#!/usr/bin/env python3
"""A moving-average crossover backtest with an in-sample / out-of-sample split (stdlib only).

Usage: python3 backtest.py PRICES.csv      (a CSV with a header and columns date,close)

- The first 70% of the days are in sample: the (short, long) window pair is chosen there, by
  annualised Sharpe, from a small fixed grid. The last 30% are out of sample: the chosen pair is
  run there once, and only those days are measured.
- Long or flat: long while the short moving average is above the long one.
- No look-ahead: the signal computed at the close of day t (prices up to t) is traded at the
  close of day t+1, so it earns the returns from day t+2 on.
- Costs: 10 bps of the position traded, each time it changes (an entry and an exit are a trade each).

Metrics (out of sample): sharpe_oos (annualised, 252 days), max_drawdown (a negative fraction,
0 if none), total_return_oos (a fraction), n_trades. Written as a JSON object to the file named by
$ROUNDTABLE_METRICS when it is set, and always printed as the last line of stdout.
"""
import csv
import json
import math
import os
import sys

COST = 0.0010  # 10 bps per trade
IN_SAMPLE = 0.70
GRID = [(s, l) for s in (5, 10, 20) for l in (30, 50, 100) if s < l]
DAYS_PER_YEAR = 252


def read_prices(name):
    path = name if os.path.exists(name) else os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    prices = [float(r["close"]) for r in rows]
    if len(prices) < 200:
        raise SystemExit(f"{name}: {len(prices)} prices; the backtest needs at least 200")
    return prices


def moving_average(prices, n):
    """ma[t] = mean of prices[t-n+1 .. t]; None before there are n prices."""
    out, total = [None] * len(prices), 0.0
    for t, p in enumerate(prices):
        total += p
        if t >= n:
            total -= prices[t - n]
        if t >= n - 1:
            out[t] = total / n
    return out


def held_positions(prices, short, long):
    """held[t]: the position held after the close of day t = the signal of day t-1 (traded at close t)."""
    ma_s, ma_l = moving_average(prices, short), moving_average(prices, long)
    signal = [1 if (a is not None and b is not None and a > b) else 0 for a, b in zip(ma_s, ma_l)]
    return [0] + signal[:-1]


def daily_returns(prices, held, start, end):
    """Net strategy returns of days start..end-1 (day d: close d-1 to close d), and the trades made on them."""
    rets, trades = [], 0
    for d in range(max(start, 1), end):
        r = held[d - 1] * (prices[d] / prices[d - 1] - 1.0)
        change = abs(held[d] - held[d - 1])  # traded at the close of day d
        trades += change
        rets.append(r - COST * change)
    return rets, trades


def sharpe(rets):
    if len(rets) < 2:
        return 0.0
    mean = sum(rets) / len(rets)
    var = sum((r - mean) ** 2 for r in rets) / (len(rets) - 1)
    return 0.0 if var == 0 else mean / math.sqrt(var) * math.sqrt(DAYS_PER_YEAR)


def max_drawdown(rets):
    equity, peak, worst = 1.0, 1.0, 0.0
    for r in rets:
        equity *= 1.0 + r
        peak = max(peak, equity)
        worst = min(worst, equity / peak - 1.0)
    return worst


def main(argv):
    if len(argv) != 2:
        raise SystemExit("usage: python3 backtest.py PRICES.csv")
    prices = read_prices(argv[1])
    split = int(len(prices) * IN_SAMPLE)

    best = None
    for short, long in GRID:
        rets, _ = daily_returns(prices, held_positions(prices, short, long), 0, split)
        score = sharpe(rets)
        if best is None or score > best[0]:
            best = (score, short, long)
    sharpe_is, short, long = best

    # The chosen pair, out of sample. The moving averages there use earlier prices only.
    rets, trades = daily_returns(prices, held_positions(prices, short, long), split, len(prices))
    total = 1.0
    for r in rets:
        total *= 1.0 + r
    metrics = {
        "sharpe_oos": round(sharpe(rets), 4),
        "max_drawdown": round(max_drawdown(rets), 4),
        "total_return_oos": round(total - 1.0, 4),
        "n_trades": trades,
        "short_window": short,
        "long_window": long,
        "sharpe_is": round(sharpe_is, 4),
    }
    print(f"{argv[1]}: {len(prices)} days, in sample {split}, out of sample {len(prices) - split}; chose MA({short}) x MA({long}) in sample (Sharpe {sharpe_is:.2f})")
    target = os.environ.get("ROUNDTABLE_METRICS")
    if target:
        with open(target, "w") as f:
            json.dump(metrics, f)
    print(json.dumps(metrics))


if __name__ == "__main__":
    main(sys.argv)
