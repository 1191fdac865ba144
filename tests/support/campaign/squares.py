"""An experiment of one's own for tests/campaign/test_experiment.py, in a module of its own (the
runner imports it by name, as pool and Dask workers do)."""

from __future__ import annotations

import argparse

from resilsched.campaign import Task
from resilsched.campaign.experiment import Experiment
from resilsched.commands.args import ReproductionParser, integer

HERE = "tests.support.campaign.squares"
#: the payloads `square` ran on in this process
CALLS: list[int] = []


def square(x: int) -> int:
    CALLS.append(x)
    return x * x


def square_tasks(args: argparse.Namespace) -> list[Task]:
    return [Task({"x": x, "offset": args.offset}, x + args.offset) for x in range(args.n)]


def parse_args(argv, prog: str = "squares") -> argparse.Namespace:
    ap = ReproductionParser(prog=prog)
    ap.add_argument("--n", type=integer(1, 50), default=4)
    ap.add_argument("--offset", type=integer(0, 9), default=0)
    ap.add_argument("--jobs", type=integer(1, 8), default=1)
    return ap.parse_args(argv)


SQUARES = Experiment("squares", f"{HERE}:square", "squares of the first n integers",
                     plan=f"{HERE}:square_tasks", options=f"{HERE}:parse_args",
                     arguments=("n", "offset"))
#: an experiment that runs only from code of its own (no spec form)
PLAIN = Experiment("plain", f"{HERE}:square")
CAMPAIGNS = {e.name: e for e in (SQUARES, PLAIN)}
