"""Left-to-right layout of one graph level: each node in the column of its longest path from an entry node,
columns spread vertically around a common middle. Linear in nodes + edges; cycles (which load with a
warning) are broken where they close. Pure Python."""

from __future__ import annotations

COLUMN_WIDTH = 260.0
ROW_HEIGHT = 110.0


def left_to_right(nodes: list[str], edges: list[tuple[str, str]]) -> dict[str, tuple[float, float]]:
    known = set(nodes)
    successors: dict[str, list[str]] = {n: [] for n in nodes}
    incoming: dict[str, int] = {n: 0 for n in nodes}
    for source, target in edges:
        if source in known and target in known and source != target:
            successors[source].append(target)
            incoming[target] += 1
    column: dict[str, int] = {}
    # Kahn's order; nodes left on a cycle are placed after their placed predecessors.
    ready = [n for n in nodes if incoming[n] == 0]
    remaining = dict(incoming)
    order: list[str] = []
    placed: set[str] = set()
    pending = list(nodes)
    while True:
        while ready:
            node = ready.pop(0)
            if node in placed:
                continue
            placed.add(node)
            order.append(node)
            column.setdefault(node, 0)
            for nxt in successors[node]:
                column[nxt] = max(column.get(nxt, 0), column[node] + 1)
                remaining[nxt] -= 1
                if remaining[nxt] == 0:
                    ready.append(nxt)
        while pending and pending[0] in placed:
            pending.pop(0)
        if not pending:
            break
        ready.append(pending[0])  # the rest is on a cycle: break it here
    columns: dict[int, list[str]] = {}
    for node in order:
        columns.setdefault(column[node], []).append(node)
    out: dict[str, tuple[float, float]] = {}
    for index, members in columns.items():
        top = -(len(members) - 1) * ROW_HEIGHT / 2
        for row, node in enumerate(members):
            out[node] = (index * COLUMN_WIDTH, top + row * ROW_HEIGHT)
    return out
