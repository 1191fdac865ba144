"""Benchmark of ``resilsched plot`` on a 10,000-job desktop instance (issue 24, docs/plots.md).

The instance is the desktop preset ``paper`` (500 hosts x 10,000 jobs, seed 1), written to a
temporary folder. Two measures, each the median of ``--repeat`` runs:

- **drawing**: in this process, with the heuristic's result at hand: validation, layout of the
  segments, the figure, the PNG and the CSV (`resilsched.plot.result`), wall and CPU time;
- **command**: the whole ``resilsched plot FILE --heuristic DAslack --out ... --csv ...`` in a
  fresh process (Python start, imports, reading the 1 MB instance, the heuristic, drawing),
  wall time and the CPU time of the child.

Goal: the picture of a 10,000-job desktop instance is drawn in under 10 s. The machine is shared,
so the load average is printed before and after, and CPU time beside wall time.

    python scripts/bench_plot.py [--repeat 3] [--heuristic DAslack] [--keep DIR] [--write]

``--write`` puts the two measures on docs/performance.md (scripts/benchpage.py).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchpage import Row, Run, add_write_option

TITLE = "Pictures (`scripts/bench_plot.py`)"
INTRO = """`resilsched plot` on the desktop preset `paper` (500 hosts x 10,000 jobs, seed 1) with
the heuristic's schedule (DAslack): the drawing in this process with the result at hand
(validation, layout of the segments, the figure, the PNG and the CSV) and the whole command in
a fresh process (Python start, imports, reading the instance, the heuristic, drawing), medians
of the repeats, wall and CPU seconds. Goal: issue 24's, the picture of a 10,000-job desktop
instance drawn in under 10 s."""


def _drawing(path: Path, heuristic: str, out: Path) -> tuple[float, float, int]:
    """(wall, cpu, segments) of drawing the heuristic's schedule, the run itself excluded."""
    from resilsched.io import read_instances
    from resilsched.plot.result import Headline, figure_of, pictures_of, save

    fam, insts = read_instances(path)
    inst = insts[0]
    scenario = fam.scenario(inst, None)
    h = fam.heuristics[heuristic]
    res = h.run(inst, scenario, h.default_priority)
    import matplotlib.backends.backend_agg  # noqa: F401  (imports outside the measure)
    import matplotlib.figure  # noqa: F401

    wall, cpu = time.perf_counter(), time.process_time()
    pictures = pictures_of(fam, inst, scenario, [("heuristic", res)])
    save(figure_of(pictures, Headline(inst.name or "paper")), out / "big.png")
    pictures[0].segments.write_csv(out / "big.csv")
    return time.perf_counter() - wall, time.process_time() - cpu, len(pictures[0].segments)


def _command(path: Path, heuristic: str, out: Path) -> tuple[float, float]:
    """(wall, child CPU) of the whole command in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    subprocess.run([sys.executable, "-m", "resilsched", "plot", str(path), "--heuristic",
                    heuristic, "--out", str(out / "cmd.png"), "--csv", str(out / "cmd.csv"),
                    "-q"], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per measure (default 3)")
    ap.add_argument("--heuristic", default="DAslack", help="desktop heuristic (DAslack)")
    ap.add_argument("--keep", help="write the instance, PNG and CSV here (default: a "
                                       "temporary folder, deleted)")
    add_write_option(ap)
    args = ap.parse_args(argv)
    bench = Run(__file__, argv)
    from resilsched.registry import get_family

    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.keep or tmp)
        out.mkdir(parents=True, exist_ok=True)
        inst = get_family("desktop").generators["paper"].generate(1, 1)[0]
        path = out / "desktop-paper-1.json"
        path.write_text(json.dumps(inst.to_dict()))
        print(f"instance: {inst.m} machines, {inst.n} jobs, "
              f"{sum(m.K for m in inst.machines)} availabilities ({path.stat().st_size} bytes)")
        draws = [_drawing(path, args.heuristic, out) for _ in range(args.repeat)]
        cmds = [_command(path, args.heuristic, out) for _ in range(args.repeat)]
    wall = statistics.median(d[0] for d in draws)
    cpu = statistics.median(d[1] for d in draws)
    print(f"drawing ({draws[0][2]} segments: validate, lay out, figure, PNG, CSV): "
          f"{wall:.2f} s wall, {cpu:.2f} s CPU (median of {args.repeat})")
    print(f"command (fresh process, {args.heuristic} included): "
          f"{statistics.median(c[0] for c in cmds):.2f} s wall, "
          f"{statistics.median(c[1] for c in cmds):.2f} s CPU (median of {args.repeat})")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.write:
        cmd_wall = statistics.median(c[0] for c in cmds)
        cmd_cpu = statistics.median(c[1] for c in cmds)
        bench.write(args.write, TITLE, INTRO, [
            Row(f"drawing, {draws[0][2]:,} segments ({args.heuristic}): wall / CPU s", "-",
                f"{wall:.2f} / {cpu:.2f} (median of {args.repeat})"),
            Row(f"`resilsched plot ... --csv` in a fresh process ({args.heuristic} included): "
                "wall / CPU s", "< 10 s (issue 24)",
                f"{cmd_wall:.2f} / {cmd_cpu:.2f} (median of {args.repeat})")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
