#!/usr/bin/env python3
"""Reproduce the experiments of the desktop-grid paper (spec 004 §4.5, Figs. 5-7, claims R1-R10).

Thin wrapper of `resilsched.reproduce.desktop` (the same program as ``resilsched reproduce
desktop``); see that module for what it computes and writes.

Usage::

    python3 scripts/reproduce_desktop.py [--machine-sets 10 --job-sets 10 --hosts 500 ...]
"""

import sys

from resilsched.reproduce.desktop import main

if __name__ == "__main__":
    sys.exit(main())
