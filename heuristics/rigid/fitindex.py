"""The ready jobs of a greedy pass, indexed by width: "first job in priority order that fits"
in O(log n) (spec 002 §4.2, R-LIST-0; the backfilling of R-LIST-1).

A GREEDY pass scans the queue in priority order and starts every job that fits the free
processors. Starting, again and again, the first queued job that fits gives the same starts: a
job skipped for want of processors never fits later in the same pass, the free processors only
decrease. `FitIndex` finds that job with a min-width segment tree over the priority positions,
so a pass costs O(k log n) for k starts instead of a scan of the whole queue (O(n) per event,
O(A n) per run: 11 s for 10^4 jobs on P = 10^7).
"""

from __future__ import annotations

from collections.abc import Sequence


class FitIndex:
    """Positions 0..n-1 of a fixed priority order; position i holds the width of its job while
    the job is queued, else `never` (a width no free count reaches, e.g. P + 1).

    >>> index = FitIndex([3, 1, 2], never=5)
    >>> index.first_fitting(2), index.first_fitting(0)
    (1, -1)
    >>> index.set(1, 5); index.first_fitting(2)
    2
    """

    __slots__ = ("size", "never", "tree")

    def __init__(self, widths: Sequence[int], never: int) -> None:
        size = 1
        while size < len(widths):
            size *= 2
        self.size, self.never = size, never
        tree = [never] * (2 * size)
        tree[size:size + len(widths)] = widths
        for i in range(size - 1, 0, -1):
            tree[i] = min(tree[2 * i], tree[2 * i + 1])
        self.tree = tree

    def set(self, pos: int, width: int) -> None:
        """Position `pos` now holds `width` (`never`: its job left the queue)."""
        tree = self.tree
        i = pos + self.size
        tree[i] = width
        i //= 2
        while i:
            low = min(tree[2 * i], tree[2 * i + 1])
            if tree[i] == low:
                break
            tree[i] = low
            i //= 2

    def first_fitting(self, free: int) -> int:
        """Leftmost position whose width is <= `free`, or -1."""
        tree = self.tree
        if tree[1] > free:
            return -1
        i = 1
        while i < self.size:
            i = 2 * i if tree[2 * i] <= free else 2 * i + 1
        return i - self.size

    def next_fitting(self, free: int, start: int) -> int:
        """Leftmost position >= `start` whose width is <= `free`, or -1.

        >>> FitIndex([1, 4, 2, 1], never=9).next_fitting(2, 1)
        2
        """
        if start >= self.size:
            return -1
        tree = self.tree
        i = start + self.size
        while tree[i] > free:  # to the next subtree on the right
            while i & 1:  # a right child (or the root): climb
                i >>= 1
                if i == 0:
                    return -1
            i += 1
        while i < self.size:
            i = 2 * i if tree[2 * i] <= free else 2 * i + 1
        return i - self.size
