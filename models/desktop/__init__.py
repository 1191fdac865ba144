"""Exact models of the desktop family (spec 004 §7.1): the horizon model in CP-SAT (`cpsat`) and
as a HiGHS MILP (`milp`), and the exact worst-case disturbance of an allocation on tiny instances
(`worst_case`)."""
