"""Worksharing family: exact and certified models (spec 003 §2, §7).

- `solve`: the registered ``certified`` and ``qp-one-worker`` models (options, deadline);
- `two_worker`: Theorems 6-8 and the enumeration certificate of Theorem 7;
- `highs_qp`: the HiGHS QP certificate of the one-worker optimum.

The objective (the expected-work evaluator and the schedule types) is
`resilsched.instances.worksharing.evaluate`; the one-worker closed forms are
`resilsched.heuristics.worksharing.one_worker`.
"""
