#!/usr/bin/env python3
"""Reproduce the rigid-job experiments of Benoit et al. (spec 002 §8, §9): Figs. 4-6, Table 1.

Thin wrapper of `resilsched.reproduce.rigid` (the same program as ``resilsched reproduce
rigid``), kept so that the commands below work as before; see that module for what it computes
and writes.

    python scripts/reproduce_rigid.py                      # scaled-down, ~minutes
    python scripts/reproduce_rigid.py --full --jobs 8      # interrupt and rerun: it resumes
    python scripts/reproduce_rigid.py --only table1 --swf ANL-Intrepid-2009-1.swf \\
        --cores-per-node 4
"""

import sys

from resilsched.reproduce.rigid import main

if __name__ == "__main__":
    sys.exit(main())
