"""Polynomial-time algorithms and simulators, one module per family (resilsched.heuristics)."""
