#!/usr/bin/env python3
"""Writes the two price series the backtest example runs on, deterministically (seeded PRNG).

prices-trending.csv     persistent trends (up and down regimes of 30-60 trading days) plus small noise:
                        a moving-average crossover should make money out of sample.
prices-random-walk.csv  a driftless Gaussian random walk: there is nothing to find, so the crossover
                        should lose (its trading costs) out of sample.

Run: python3 make_prices.py   (writes both files next to this script; same bytes every time)
"""
import datetime
import math
import os
import random

ROWS = 1000
HERE = os.path.dirname(os.path.abspath(__file__))


def business_days(n, start=datetime.date(2020, 1, 1)):
    day = start
    out = []
    while len(out) < n:
        if day.weekday() < 5:
            out.append(day.isoformat())
        day += datetime.timedelta(days=1)
    return out


def trending(rng):
    price, prices = 100.0, []
    drift, left = 0.004, 0
    while len(prices) < ROWS:
        if left == 0:
            # A new regime: the opposite direction for 30-60 days.
            drift = -math.copysign(0.004, drift) if prices else 0.004
            left = rng.randint(30, 60)
        price *= math.exp(drift + rng.gauss(0.0, 0.006))
        prices.append(price)
        left -= 1
    return prices


def random_walk(rng):
    price, prices = 100.0, []
    for _ in range(ROWS):
        price *= math.exp(rng.gauss(0.0, 0.01))
        prices.append(price)
    return prices


def write(name, prices):
    with open(os.path.join(HERE, name), "w", newline="\n") as f:
        f.write("date,close\n")
        for day, price in zip(business_days(len(prices)), prices):
            f.write(f"{day},{price:.4f}\n")


if __name__ == "__main__":
    write("prices-trending.csv", trending(random.Random(20240601)))
    write("prices-random-walk.csv", random_walk(random.Random(0)))
