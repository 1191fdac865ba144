"""The local and global policies of the desktop family (spec 004 §3, tests 1, 2, 6-9, 11, 12 of
§7.3)."""

import itertools

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.heuristics.desktop import build, da_slack_heuristic, greedy_slack_heuristic
from resilsched.heuristics.desktop.dpslack import select, select_reference
from resilsched.heuristics.desktop.policies import LOCAL
from resilsched.heuristics.desktop.reference import LITERAL
from resilsched.heuristics.desktop.state import CutData, State, cut_view, greedy_view
from resilsched.instances.desktop import DesktopInstance, Machine, sample_disturbance
from resilsched.instances.desktop.presets import tiny_instance, x1
from resilsched.validation.desktop import validate_desktop_schedule
from tests.support.desktop.cases import rule_ok

GLOBALS = ("GreedySlack", "DAslack")
VARIANTS = [(g, loc, s) for g in GLOBALS for loc in LOCAL for s in (True, False)]


@pytest.mark.parametrize("g, expected", [
    ("GreedySlack", {"LPT": 26, "SPT": 28, "FFD": 26, "FFI": 28, "DPslack": 26}),
    ("DAslack", {"LPT": 26, "SPT": 28, "FFD": 26, "FFI": 26, "DPslack": 26}),
])
def test_worked_example_x1(g, expected):
    """Spec 7.3 item 2: every horizon of X1, and 12 for every no-slack variant."""
    for loc, value in expected.items():
        assert build(x1(), g, loc, True)[0].horizon == value
        assert build(x1(False), g, loc, False)[0].horizon == 12


def test_x1_greedy_view_and_da_probe():
    v = greedy_view(x1())
    assert v.start == [[5, 20]] and v.avail == [[10, 8]] and v.order == [(0, 0), (0, 1)]
    d = CutData(x1())
    assert cut_view(d, 27).avail == [[10, 7]] and cut_view(d, 25).avail == [[10, 5]]
    assert cut_view(d, 45).avail == [[10, 8, 12]] and cut_view(d, 15).avail == [[10]]
    st = State(cut_view(d, 27), True)
    st.place(0, 0, 1, 4)
    assert st.longest_job(0, 1) == 3  # min(d(1) = 6, 7 // 2, 7): job 3 fits at 27, not at 25


def _random_state(rng, K):
    """A random partial allocation that respects the slack rule on one machine."""
    a = [int(x) for x in rng.integers(2, 30, K)]
    inst = DesktopInstance((Machine(1, 0, tuple(a), (1,) * K),), (1,), True)
    view = cut_view(CutData(inst), inst.horizon_end)
    st = State(view, True)
    for _ in range(int(rng.integers(0, 3 * K))):
        k, t = int(rng.integers(0, K)), int(rng.integers(1, 8))
        if t <= st.longest_job(0, k):
            st.place(0, k, 0, t)
    return inst, st


def test_longest_job_is_an_exact_insertion_test():
    """F1 (spec 7.3 item 1): t <= longestJob(i, k) iff the rule still holds after inserting t."""
    rng = np.random.default_rng(1)
    for _ in range(400):
        K = int(rng.integers(1, 6))
        inst, st = _random_state(rng, K)
        alloc = {(0, k + 1): [0] * 0 for k in range(K)}
        for k in range(K):
            for t in range(1, 16):
                S = [s + (t if x == k else 0) for x, s in enumerate(st.S[0])]
                M = [max(m, t) if x == k else m for x, m in enumerate(st.M[0])] + [0, 0]
                ok = all(inst.machines[0].a[x] - S[x] >= max(M[x], M[x + 1], M[x + 2])
                         for x in range(K))
                assert (t <= st.longest_job(0, k)) == ok, (st.S, st.M, k, t)
        del alloc


def test_dpslack_selection_is_the_brute_force_optimum():
    """Spec 7.3 item 6: the bitset selection = the literal tables = brute force."""
    rng = np.random.default_rng(2)
    for _ in range(1500):
        n = int(rng.integers(0, 9))
        c = sorted(int(x) for x in rng.integers(1, 12, n))
        A, m1, m2 = int(rng.integers(0, 60)), int(rng.integers(0, 8)), int(rng.integers(0, 8))
        for slack in (True, False):
            fast, ref = select(c, A, m1, m2, slack), select_reference(c, A, m1, m2, slack)
            assert fast == ref
            best = 0
            for r in range(n + 1):
                for sub in itertools.combinations(range(n), r):
                    s = sum(c[x] for x in sub)
                    extra = max([c[x] for x in sub] + [m1, m2]) if (slack and sub) else 0
                    if s + extra <= A:
                        best = max(best, s)
            assert sum(c[x] for x in fast) == best
            if slack and fast:
                assert sum(c[x] for x in fast) + max([c[x] for x in fast] + [m1, m2]) <= A


def test_dpslack_large_bins_match_the_tables():
    rng = np.random.default_rng(3)
    for _ in range(40):
        c = sorted(int(x) for x in rng.integers(5, 60, int(rng.integers(10, 40))))
        A = int(rng.integers(50, 400))
        m1, m2 = int(rng.integers(0, 40)), int(rng.integers(0, 40))
        for slack in (True, False):
            assert select(c, A, m1, m2, slack) == select_reference(c, A, m1, m2, slack)


def _views(inst):
    d = CutData(inst)
    return [greedy_view(inst)] + [cut_view(d, lam) for lam in
                                  {inst.horizon_end, inst.horizon_end // 2, inst.horizon_end // 3}]


def test_fast_policies_equal_the_literal_pseudocode():
    """Spec 7.3 item 7: same pi (and the same order inside every bin) on random instances."""
    for seed in range(120):
        inst = tiny_instance(seed, slack_rule=seed % 2 == 0, max_machines=3, max_intervals=5,
                             max_jobs=8)
        for view in _views(inst):
            for name, pol in LOCAL.items():
                for slack in (True, False):
                    a = pol(inst, view, slack)
                    b = LITERAL[name](view, inst.sorted_durations, slack)
                    assert (a is None) == (b is None)
                    if a is not None:
                        assert a.jobs == b.jobs, (seed, name, slack)


@pytest.mark.parametrize("g, loc, slack", VARIANTS)
def test_every_variant_is_valid(g, loc, slack):
    """Spec 7.3 item 9: every job once, the rule kept, H(pi) <= lambda (= for GreedySlack)."""
    built = 0
    for seed in range(60):
        inst = tiny_instance(seed, slack_rule=slack, max_intervals=5, max_jobs=6)
        try:
            sched, _ = build(inst, g, loc, slack)
        except InvalidInstance:
            continue
        built += 1
        validate_desktop_schedule(inst, sched, slack, last_interval=g == "DAslack")
        alloc = {ik: list(js) for ik, js in sched.intervals.items()}
        assert rule_ok(inst, alloc, slack)
        assert sched.H <= sched.horizon and (g == "DAslack" or sched.H == sched.horizon)
    assert built >= 20


def test_da_result_is_a_valid_probe_and_search_is_minimal_for_monotone_oracles():
    """Spec 7.3 item 11: the returned lambda is valid (the printed inverted branch is not used)."""
    inst = tiny_instance(7, max_intervals=5, max_jobs=6)
    for loc in LOCAL:
        sched, _ = build(inst, "DAslack", loc, True)
        view = cut_view(CutData(inst), sched.horizon)
        assert LOCAL[loc](inst, view, True) is not None
        below = LOCAL[loc](inst, cut_view(CutData(inst), sched.horizon - 1), True)
        if loc in ("LPT", "SPT"):  # validity is monotone for them (F1, F3)
            assert below is None


def test_registered_heuristics_report_stability():
    inst = x1()
    res = greedy_slack_heuristic(inst, sample_disturbance(inst, 3), "FFD")
    assert res.objective == 26 and res.priority == "FFD" and res.heuristic == "GreedySlack"
    assert 0 < res.extra["stability"] <= 1 and res.extra["variant"] == "GS-FFD"
    res = da_slack_heuristic(inst, None, "FFI", slack="off")
    assert res.objective == 12 and res.extra["variant"] == "DA-FFI-noslack"
    assert res.extra["nominal_makespan"] == 7 and res.extra["stability"] == 7 / 12


def test_too_short_a_trace_is_a_one_line_error():
    inst = DesktopInstance((Machine(1, 0, (10, 2), (1, 1)),), (4, 4), True)
    with pytest.raises(InvalidInstance, match="cannot place every job in the 1 of 2 "
                                              "intervals GreedySlack keeps"):
        build(inst, "GreedySlack", "LPT", True)


def test_determinism():
    inst = tiny_instance(11, max_intervals=5, max_jobs=7)
    for g, loc, slack in VARIANTS:
        try:
            a, b = build(inst, g, loc, slack)[0], build(inst, g, loc, slack)[0]
        except InvalidInstance:
            continue
        assert a == b


def test_da_shortcuts_change_nothing():
    """Capacity refutation, reuse of the last LPT/SPT run and its replayed prefix give the plain
    binary search's allocation and horizon."""
    from resilsched.heuristics.desktop.policies import da_slack
    from resilsched.instances.desktop.generators import AvailabilityModel, synthetic_instance

    insts = [tiny_instance(s, max_intervals=5, max_jobs=7) for s in range(40)]
    insts += [synthetic_instance(6, 60, s, 100 + s, model=AvailabilityModel(span=4 * 86400))
              for s in range(4)]
    replayed = 0
    for inst in insts:
        for pol in LOCAL.values():
            for slack in (True, False):
                try:
                    fast = da_slack(inst, pol, slack)
                except InvalidInstance:
                    continue
                plain = da_slack(inst, pol, slack, shortcuts=False)
                assert (fast.intervals, fast.horizon) == (plain.intervals, plain.horizon)
                replayed += fast.info["replayed_steps"]
    assert replayed > 0


def _cut_view_literal(inst, lam):
    """Algorithm 6's cut, machine by machine (what the flat `cut_view` must equal)."""
    start, avail, q, bins = [], [], [], []
    for i, mach in enumerate(inst.machines):
        ends = list(mach.e[1:])
        K = min(next((k for k, e in enumerate(ends) if e >= lam), len(ends)) + 1, len(ends))
        a = list(mach.a[:K])
        if mach.e[K] > lam:
            a[K - 1] = max(0, lam - mach.u[K - 1] - mach.e[K - 1])
        start.append(list(mach.e[:K]))
        avail.append(a)
        q.append(list(mach.q[:K]))
        bins += [(a[k], i, k) for k in range(K) if a[k] > 0]
    return start, avail, q, [(i, k) for _, i, k in sorted(bins)]


def test_cut_and_greedy_views_equal_the_literal_ones():
    from resilsched.instances.desktop.generators import AvailabilityModel, synthetic_instance

    insts = [tiny_instance(s, max_machines=3, max_intervals=5) for s in range(30)]
    insts.append(synthetic_instance(6, 40, 1, 101, model=AvailabilityModel(span=4 * 86400)))
    for inst in insts:
        data = CutData(inst)
        ends = sorted({e for mach in inst.machines for e in mach.e})
        for lam in {0, 1, *ends, *(e + 1 for e in ends), *(e - 1 for e in ends),
                    inst.horizon_end, inst.horizon_end + 5}:
            view = cut_view(data, lam)
            assert (view.start, view.avail, view.q, view.order) == _cut_view_literal(inst, lam)
        view = greedy_view(inst)  # Algorithm 5: shifted to q(k), last interval dropped
        bins = sorted((mach.e[k + 1], i, k) for i, mach in enumerate(inst.machines)
                      for k in range(mach.K - 1))
        assert view.start == view.q == [list(mach.q[:mach.K - 1]) for mach in inst.machines]
        assert view.avail == [list(mach.a[:mach.K - 1]) for mach in inst.machines]
        assert view.order == [(i, k) for _, i, k in bins]
