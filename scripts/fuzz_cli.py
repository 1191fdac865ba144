#!/usr/bin/env python3
"""Fuzz the ``resilsched`` command line with malformed input (issue 10, "bad input").

Every case is a command line of ``solve``, ``simulate``, ``gap``, ``check``, ``generate``,
``list`` or ``trace`` built from the example instances of every family (``examples/*.json``), a
small SWF trace and a thresholds file, one of them mutated: a field of the wrong type, NaN and
infinities, numbers that overflow, huge sizes, bytes that are not UTF-8, JSON nested 100,000
deep, a directory where a file is expected, an option out of its range. The cases are a pure
function of ``--seed``.

The other surfaces are areas of their own, mixed in by weight (`fuzz_cases.AREAS`): tampered
and malformed libraries (``library verify``, ``gap --library``), campaign specs, stores and
output paths, the Batsim export, ``MODULE:FUNCTION`` plug-in references, and the desktop and
malleable instance readers (scripts/fuzz_<area>.py). The cases are built by
scripts/fuzz_cases.py. Each case runs in-process through
`resilsched.cli.main` in a forked child (so that a hang inside
C code can be killed), with a per-case timeout and a memory cap, and is classified:

- ``ok``: exit 0 (or 1 for ``check``), and with ``--json`` one JSON object on standard output;
- ``refusal``: exit 2, one line ``error: ...`` on standard error, nothing on standard output;
- ``failed``: ``library verify`` exits 1 with one FAILED verdict per failing instance;
- ``traceback``: an exception escaped ``main`` (or the child died of a signal);
- ``hang``: the case ran past its timeout;
- ``accepted``: a mutation known to be invalid ran as if it were fine (it should be refused,
  or fail verification);
- ``bad-refusal``: exit 2 but not one line, or with output; ``bad-output``: anything else.

Usage::

    python3 scripts/fuzz_cli.py --cases 2400 --seed 0          # the full run (about 20 minutes)
    python3 scripts/fuzz_cli.py --cases 300 --area library     # one surface (see fuzz_cases.AREAS)
    python3 scripts/fuzz_cli.py --cases 200 --show traceback   # print the failing commands
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BAD = ("traceback", "hang", "accepted", "bad-refusal", "bad-output")
MEMORY_CAP = 4 * 2**30

sys.path.insert(0, str(Path(__file__).resolve().parent))
# the script's own folder; make_cases (the command-line area alone) is the suite's slice
from fuzz_cases import AREAS, Case, data_of, make_cases, make_mixed_cases  # noqa: E402, F401


# --- running ----------------------------------------------------------------------------------
@dataclass
class Outcome:
    case: Case
    kind: str
    code: int | None
    out: str
    err: str
    seconds: float


def _child(argv: list[str], out_fd: int, err_fd: int) -> None:
    """Run `argv` through `resilsched.cli.main` with fds 1/2 redirected; never returns."""
    code = 99
    try:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), write_through=True)
        sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), write_through=True)
        from resilsched.cli import main

        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        except BaseException:  # the finding: an exception escaped main
            traceback.print_exc()
            code = 99
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
    finally:
        os._exit(code if isinstance(code, int) and 0 <= code < 256 else 99)


def run_case(case: Case, timeout: float) -> Outcome:
    """Run one case in a forked child; classify the result."""
    with tempfile.TemporaryDirectory(prefix="fuzz-") as d:
        for name, data in case.files.items():
            (Path(d) / name).write_bytes(data_of(data))
        argv = [a.replace("{d}", d) for a in case.argv]
        out_f, err_f = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.chdir(d)
            _child(argv, out_f.fileno(), err_f.fileno())
        status = None
        while time.perf_counter() - start < timeout:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.002 if time.perf_counter() - start < 0.5 else 0.02)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            status = None
        seconds = time.perf_counter() - start
        out_f.seek(0)
        err_f.seek(0)
        out = out_f.read().decode("utf-8", "replace")
        err = err_f.read().decode("utf-8", "replace")
    if status is None:
        return Outcome(case, "hang", None, out, err, seconds)
    if os.WIFSIGNALED(status):
        return Outcome(case, "traceback", -os.WTERMSIG(status), out, err, seconds)
    code = os.WEXITSTATUS(status)
    return Outcome(case, classify(case, argv, code, out, err), code, out, err, seconds)


class _Timeout(BaseException):
    """Raised by the alarm of `run_case_here`."""


def run_case_here(case: Case, timeout: float) -> Outcome:
    """Run one case in this process (faster than `run_case`, for the test suite): the timeout is
    a signal alarm, which cannot interrupt a hang inside C code, and there is no memory cap."""
    from resilsched.cli import main

    def alarm(signum, frame):
        raise _Timeout

    with tempfile.TemporaryDirectory(prefix="fuzz-") as d:
        for name, data in case.files.items():
            (Path(d) / name).write_bytes(data_of(data))
        argv = [a.replace("{d}", d) for a in case.argv]
        out, err = io.StringIO(), io.StringIO()
        previous = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        start = time.perf_counter()
        code: int | None = 99
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = main(argv)
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 2
                except _Timeout:
                    raise
                except BaseException:  # the finding: an exception escaped main
                    traceback.print_exc()
                    code = 99
        except _Timeout:
            code = None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        seconds = time.perf_counter() - start
    if code is None:
        return Outcome(case, "hang", None, out.getvalue(), err.getvalue(), seconds)
    return Outcome(case, classify(case, argv, code, out.getvalue(), err.getvalue()), code,
                   out.getvalue(), err.getvalue(), seconds)


def classify(case: Case, argv: list[str], code: int, out: str, err: str) -> str:
    if code == 99 or "Traceback (most recent call last)" in err:
        return "traceback"
    if code == 2:
        one_line = err.count("\n") == 1 and err.endswith("\n") and err.startswith("error: ")
        return "refusal" if one_line and out == "" else "bad-refusal"
    if code == 1 and argv[:2] == ["library", "verify"]:  # a FAILED verdict per bad instance
        return "failed" if _verdict(out, "--json" in argv) else "bad-output"
    if code in (0, 1) and (code == 0 or argv[0] == "check" or argv[:2] == ["campaign", "merge"]):
        if case.expect in ("refuse", "fail"):
            return "accepted"
        if "--json" in argv:
            try:
                json.loads(out, parse_constant=_no_constant)
            except ValueError:
                return "bad-output"
        return "ok"
    return "bad-output"


def _verdict(out: str, as_json: bool) -> bool:
    """``library verify`` output of exit status 1: one FAILED verdict per failing instance."""
    if as_json:
        try:
            d = json.loads(out, parse_constant=_no_constant)
        except ValueError:
            return False
        return d.get("failed", 0) >= 1 and len(d.get("failures", ())) == d["failed"]
    head = out.split("\n", 1)[0]
    failed = head.rsplit(", ", 1)[-1].split(" ", 1)[0]
    return failed.isdigit() and int(failed) >= 1 and out.count("\n  FAILED ") == int(failed)


def _no_constant(name: str):
    raise ValueError(f"{name} in JSON output")


def preload() -> None:
    """Import every module of resilsched in the parent: the forked children start warm and run
    the code as it was when the fuzzer started."""
    import importlib
    import pkgutil

    import resilsched

    for info in pkgutil.walk_packages(resilsched.__path__, "resilsched."):
        if info.name.endswith("__main__"):
            continue
        with contextlib.suppress(Exception):
            importlib.import_module(info.name)


def run_all(cases: list[Case], timeout: float, progress: bool = False,
            fork: bool = True) -> list[Outcome]:
    """Run every case, each in a forked child (`run_case`) or in this process (which imports
    what a case needs as it runs, like a fresh ``resilsched`` process: nothing to preload)."""
    if fork:
        preload()
    outcomes = []
    for i, case in enumerate(cases, 1):
        outcomes.append(run_case(case, timeout) if fork else run_case_here(case, timeout))
        if progress and (i % 100 == 0 or i == len(cases)):
            counts = Counter(o.kind for o in outcomes)
            print(f"[{i}/{len(cases)}] " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
                  file=sys.stderr, flush=True)
    return outcomes


def summary(outcomes: list[Outcome]) -> dict[str, int]:
    counts = Counter(o.kind for o in outcomes)
    return {k: counts.get(k, 0) for k in ("ok", "refusal", "failed", *BAD)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2400, help="number of cases (default 2400)")
    parser.add_argument("--seed", type=int, default=0, help="case generator seed (default 0)")
    parser.add_argument("--timeout", type=float, default=20.0,
                        help="seconds per case before it counts as a hang (default 20)")
    parser.add_argument("--show", action="append", default=[], metavar="KIND",
                        help="print the command lines of this outcome kind (repeatable; "
                        "'bad' = every bad kind)")
    parser.add_argument("--json", metavar="FILE", help="also write every outcome to FILE")
    parser.add_argument("--area", action="append", choices=["cli", *AREAS], default=None,
                        help="fuzz only this surface (repeatable; default: every one)")
    args = parser.parse_args(argv)
    cases = make_mixed_cases(args.cases, args.seed, args.area)
    t0 = time.perf_counter()
    outcomes = run_all(cases, args.timeout, progress=True)
    counts = summary(outcomes)
    show = set(BAD) if "bad" in args.show else set(args.show)
    for o in outcomes:
        if o.kind in show:
            last = (o.err.strip().splitlines() or [""])[-1][:300]
            print(f"{o.kind:11} {o.case.label} :: resilsched {' '.join(o.case.argv)[:200]} "
                  f"-> exit {o.code}, {o.seconds:.1f} s: {last}")
    print(f"{len(cases)} cases in {time.perf_counter() - t0:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in counts.items()))
    if args.json:
        Path(args.json).write_text(json.dumps([
            {"label": o.case.label, "argv": o.case.argv, "expect": o.case.expect, "kind": o.kind,
             "code": o.code, "seconds": round(o.seconds, 3), "stderr": o.err[-2000:],
             "stdout": o.out[:500]} for o in outcomes], indent=1))
    return 1 if any(counts[k] for k in ("traceback", "hang")) else 0


if __name__ == "__main__":
    sys.exit(main())
