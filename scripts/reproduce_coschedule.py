#!/usr/bin/env python3
"""Check the co-scheduling theorems numerically (spec 001 §1-2): the claims table.

Thin wrapper of `resilsched.reproduce.coschedule` (the same program as ``resilsched reproduce
coschedule``); see that module for what it computes and writes.

Usage::

    python3 scripts/reproduce_coschedule.py --instances 200
"""

import sys

from resilsched.reproduce.coschedule import main

if __name__ == "__main__":
    sys.exit(main())
