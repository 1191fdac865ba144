"""Draw the pictures of docs/plots.md: one ``resilsched plot`` command per picture.

    python scripts/draw_docs_pictures.py [--out docs/img]

Run from the repository root. `COMMANDS` are the commands docs/plots.md shows, with their
output folder ``docs/img`` (``--out`` writes elsewhere: tests/docs/test_plots.py draws them into
a temporary folder and checks that the page shows exactly these commands).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

LIB = "resilsched/library/data"

#: (picture file, the command that draws it), in the order of docs/plots.md
COMMANDS = [
    ("plot-rigid.png", "resilsched plot examples/rigid-small.json --heuristic R-SHELF-B "
                       "--method cpsat-scenario --compare --out docs/img/plot-rigid.png"),
    ("plot-moldable.png", "resilsched plot examples/moldable-small.json --heuristic LPA-LIST "
                          "--method cpsat-scenario --compare --param deterministic=true "
                          "--out docs/img/plot-moldable.png"),
    ("plot-coschedule.png", "resilsched plot examples/coschedule-small.json --heuristic "
                            "PACK-APPROX --method setpart-cg --compare "
                            "--out docs/img/plot-coschedule.png"),
    ("plot-worksharing.png", f"resilsched plot {LIB}/worksharing-small/library-1-0011.json "
                             "--heuristic random-rep --method certified --compare "
                             "--out docs/img/plot-worksharing.png"),
    ("plot-malleable.png", f"resilsched plot {LIB}/malleable-small/library-1-0023.json "
                           "--heuristic ENDLOCAL-IG --out docs/img/plot-malleable.png"),
    ("plot-malleable-optimum.png", "resilsched plot examples/malleable-small.json --heuristic "
                                   "ENDLOCAL-SAF --method faultfree-optimal --compare "
                                   "--out docs/img/plot-malleable-optimum.png"),
    ("plot-desktop.png", f"resilsched plot {LIB}/desktop-small/library-1-0032.json "
                         "--heuristic DAslack --method cpsat --compare --qbar 1 --seed 3 "
                         "--out docs/img/plot-desktop.png"),
]


def argv_of(command: str, out: Path) -> list[str]:
    """The arguments after ``resilsched`` of `command`, its picture written into `out`."""
    words = shlex.split(command)[1:]
    at = words.index("--out") + 1
    words[at] = str(out / Path(words[at]).name)
    return [*words, "-q"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/img", help="folder of the pictures (docs/img)")
    args = parser.parse_args(argv)
    from resilsched.cli import main as resilsched

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for _name, command in COMMANDS:
        code = resilsched(argv_of(command, out))
        if code != 0:
            print(f"failed ({code}): {command}", file=sys.stderr)
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
