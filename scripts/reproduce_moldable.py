#!/usr/bin/env python3
"""Reproduce Table 1 and Figs. 3-9 of the moldable paper (spec 000 §5, §6).

Thin wrapper of `resilsched.reproduce.moldable` (the same program as ``resilsched reproduce
moldable``), kept so that the command below works as before; see that package for what it
computes and writes.

Usage::

    python3 scripts/reproduce_moldable.py --sets 30 --scenarios 20 [--figures] [--sweeps]
        [--csv out.csv]
"""

import sys

from resilsched.reproduce.moldable import main

if __name__ == "__main__":
    sys.exit(main())
