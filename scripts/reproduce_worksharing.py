#!/usr/bin/env python3
"""Reproduce the worksharing paper's numbers (spec 003 §4): Table 4, E1-E6, synthetic traces.

Thin wrapper of `resilsched.reproduce.worksharing` (the same program as ``resilsched reproduce
worksharing``), kept so that the commands below work as before; see that module for what it
computes and writes.

Usage::

    python3 scripts/reproduce_worksharing.py table4
    python3 scripts/reproduce_worksharing.py e5 [--trials 1000] [--p 5 10 25 50 100]
    python3 scripts/reproduce_worksharing.py e1|e2|e3|e4|e6 [--trials 1000]
    python3 scripts/reproduce_worksharing.py traces [--trials 100] [--p 5 10]
    python3 scripts/reproduce_worksharing.py all
"""

import sys

from resilsched.reproduce.worksharing import main

if __name__ == "__main__":
    sys.exit(main())
