"""Dijkstra's shortest path on a directed weighted graph."""

import heapq
import math
from collections import defaultdict


def shortest_path(edges: list[tuple[str, str, float]], start: str, goal: str) -> tuple[float, list[str]]:
    graph: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for a, b, w in edges:
        if w < 0:
            raise ValueError(f"negative weight on edge {a} -> {b}")
        graph[a].append((b, w))
    if start == goal:
        return 0, [start]
    dist = {start: 0}
    prev: dict[str, str] = {}
    done: set[str] = set()
    heap = [(0, start)]
    while heap:
        d, node = heapq.heappop(heap)
        if node in done:
            continue
        done.add(node)
        if node == goal:
            break
        for nxt, w in graph[node]:
            nd = d + w
            if nd < dist.get(nxt, math.inf):
                dist[nxt] = nd
                prev[nxt] = node
                heapq.heappush(heap, (nd, nxt))
    if goal not in done:
        return math.inf, []
    route = [goal]
    while route[-1] != start:
        route.append(prev[route[-1]])
    return dist[goal], route[::-1]
