"""Deterministic topological sort (Kahn's algorithm with a heap)."""

import heapq


class CycleError(ValueError):
    pass


def _find_cycle(deps: dict[str, list[str]], remaining: set[str]) -> list[str]:
    # Every remaining node has a remaining dependency; walk them until a node repeats.
    node = min(remaining)
    seen: list[str] = []
    while node not in seen:
        seen.append(node)
        node = min(d for d in deps.get(node, []) if d in remaining)
    return seen[seen.index(node):] + [node]


def topo_sort(deps: dict[str, list[str]]) -> list[str]:
    nodes = set(deps)
    waiting = {n: {d for d in deps[n] if d in deps} for n in nodes}
    dependents: dict[str, list[str]] = {n: [] for n in nodes}
    for n, ds in waiting.items():
        for d in ds:
            dependents[d].append(n)
    ready = [n for n, ds in waiting.items() if not ds]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        n = heapq.heappop(ready)
        order.append(n)
        for m in dependents[n]:
            waiting[m].discard(n)
            if not waiting[m]:
                heapq.heappush(ready, m)
    if len(order) < len(nodes):
        cycle = _find_cycle(deps, nodes - set(order))
        raise CycleError("dependency cycle: " + " -> ".join(cycle))
    return order
