#!/usr/bin/env python3
"""Reproduce Figures 1.4-1.7 of the malleable-applications study (spec 001 §4, §5).

Thin wrapper of `resilsched.reproduce.malleable` (the same program as ``resilsched reproduce
malleable``); see that module for what it computes and writes.

Usage::

    python3 scripts/reproduce_malleable.py --reps 10 [--figures 1.4,1.5]
"""

import sys

from resilsched.reproduce.malleable import main

if __name__ == "__main__":
    sys.exit(main())
