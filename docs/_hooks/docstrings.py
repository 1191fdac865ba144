"""Griffe extension: the house's docstrings, read as numpy style by the API reference.

The docstrings of this project describe a parameter on one line, ``name : what it is``, its
type being the signature's annotation. Read literally as numpy style, that description would be
the parameter's *type*. Before griffe parses a docstring, this extension rewrites such an item of
a ``Parameters``, ``Other Parameters`` or ``Attributes`` section into the standard form::

    name
        what it is

when the text after `` : `` reads as prose rather than a type (it ends with a full stop, or is
not a type expression such as ``int | None`` or ``float, optional``). Lines that already follow
numpy style are left as they are. A ``Returns`` section written as a paragraph becomes the
description of the signature's return type (``:`` then the paragraph, indented). Doctest lines
(``>>>``) outside an ``Examples`` section, which Markdown would read as nested quotes, become a
``pycon`` code block in the description, or an ``Examples`` section of their own after another
section (a code block there would land in that section's last item); index expressions
(``C[r][j]``), which Markdown would read as reference links, become code. Nothing in the
sources changes: this runs in the docs build.
"""

from __future__ import annotations

import re

import griffe

#: an index expression such as C[r][j], which Markdown would read as a reference link
INDEXING = re.compile(r"(?<![`\w.])(\w+(?:\[[^\]\s`]*\]){2,})(?![`\w])")
SECTIONS = {"Parameters", "Other Parameters", "Attributes"}
RETURNS = {"Returns", "Yields"}
ITEM = re.compile(r"^(?P<indent>\s*)(?P<names>\*{0,2}[A-Za-z_][\w, *]*?) : (?P<text>.+)$")
#: a type expression: dotted names, brackets, unions, "optional", literal sets
TYPE = re.compile(r"^[\w.\[\](){}'\"|, ]+$")
#: the lowercase words of a type expression ("list of int or None", "float, optional")
TYPE_WORDS = {"optional", "or", "of", "default"}


def is_prose(text: str) -> bool:
    """Whether the text after ``name :`` describes the parameter instead of typing it."""
    text = text.strip()
    if text.endswith(".") or not TYPE.match(text):
        return True
    words = re.findall(r"[A-Za-z_]\w*", text)
    return sum(w.islower() and w not in TYPE_WORDS for w in words) >= 3


def code_indexing(line: str) -> str:
    """`line` with its index expressions outside inline code set as code."""
    out, at = [], 0
    for span in re.finditer(r"(`+).+?\1", line):
        out += [INDEXING.sub(r"``\1``", line[at:span.start()]), span.group()]
        at = span.end()
    return "".join(out) + INDEXING.sub(r"``\1``", line[at:])


def rewrite(doc: str) -> str:
    """`doc` with its compact parameter items in numpy form and its doctests fenced."""
    lines = doc.splitlines()
    out: list[str] = []
    section = None
    fence: str | None = None  # the indentation of an open doctest block
    prose: str | None = None  # the indentation of a Returns paragraph being moved in
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if prose is not None:
            if line.strip():
                out.append("    " + line)
                continue
            prose = None
        if fence is not None:
            if line.strip():
                out.append(line)
                continue
            out.append(fence + "```")
            fence = None
        if section != "Examples" and not line.lstrip().startswith((">>>", "...")):
            line = code_indexing(line)
        if nxt.strip() and set(nxt.strip()) == {"-"} and line.strip():
            section = line.strip()
        elif line.lstrip().startswith(">>>") and section not in (None, "Examples"):
            indent = line[: len(line) - len(line.lstrip())]  # after a section: its own one
            section = "Examples"
            out += [indent + "Examples", indent + "--------", line]
            continue
        elif line.lstrip().startswith(">>>") and section != "Examples":
            fence = line[: len(line) - len(line.lstrip())]
            out.append(fence + "```pycon")
        elif section in RETURNS and line.strip() and is_prose(line) and out[-1].strip() \
                and set(out[-1].strip()) == {"-"}:
            prose = line[: len(line) - len(line.lstrip())]
            out += [prose + ":", "    " + line]
            continue
        elif (m := ITEM.match(line) if section in SECTIONS else None) and is_prose(m["text"]):
            indent = m["indent"]
            cont = re.match(r"\s*", nxt).group() if nxt.strip() else ""
            inner = cont if len(cont) > len(indent) else indent + "    "
            out += [indent + m["names"].strip(), inner + m["text"].strip()]
            continue
        out.append(line)
    if fence is not None:
        out.append(fence + "```")
    return "\n".join(out)


class HouseStyle(griffe.Extension):
    """Rewrite every docstring (compact parameters, bare doctests) before it is parsed."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: object) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)
