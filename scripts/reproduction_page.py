#!/usr/bin/env python3
"""Put a reproduction's own summary file on its page of the documentation.

Usage::

    python3 scripts/reproduction_page.py FAMILY [SUMMARY] [--page PAGE]

``resilsched reproduce FAMILY ... --out DIR`` writes ``DIR/summary.md`` (default
``results/FAMILY/summary.md``). Its page, ``docs/reproduction/FAMILY.md``, holds the tables of
the run it reports between the markers ``<!-- summary.md -->`` and ``<!-- /summary.md -->``;
this script replaces what is between them with the summary's text: its title line (``# ...``)
left out, its headings moved one level down (``## Figure 1.4`` becomes ``### Figure 1.4``,
under the page's own section). Nothing outside the markers changes: the claims table that opens
the page, and the text that reads the numbers, are written by hand from the same run.

Exit status 2, with one line, when the summary or the page cannot be read or the page has no
markers.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- summary.md -->", "<!-- /summary.md -->"


def page_text(page: str, summary: str) -> str:
    """`page` with the text between its markers replaced by `summary`, headings moved down."""
    if page.count(BEGIN) != 1 or page.count(END) != 1 or page.index(BEGIN) > page.index(END):
        raise ValueError(f"the page needs one {BEGIN} ... {END} pair")
    lines = summary.strip("\n").splitlines()
    if lines and re.match(r"# ", lines[0]):
        lines = lines[1:]
    body = "\n".join("#" + ln if re.match(r"#+ ", ln) else ln for ln in lines).strip("\n")
    a, b = page.index(BEGIN) + len(BEGIN), page.index(END)
    return page[:a] + "\n" + body + "\n" + page[b:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("family")
    ap.add_argument("summary", nargs="?", type=Path,
                    help="the run's summary.md (default results/FAMILY/summary.md)")
    ap.add_argument("--page", type=Path, help="default docs/reproduction/FAMILY.md")
    args = ap.parse_args(argv)
    summary = args.summary or Path("results") / args.family / "summary.md"
    page = args.page or ROOT / "docs" / "reproduction" / f"{args.family}.md"
    try:
        text = page_text(page.read_text(encoding="utf-8"), summary.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    page.write_text(text, encoding="utf-8")
    print(f"wrote {summary} into {page}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
