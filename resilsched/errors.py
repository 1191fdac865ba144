"""Errors raised at the boundary of the toolkit (docs/architecture.md, "Conventions")."""


class InvalidInstance(ValueError):
    """Bad input: names the offending field and the rule it breaks, in one line.

    >>> str(InvalidInstance("jobs[3].p", "12 exceeds P=8"))
    'jobs[3].p=12 exceeds P=8'
    >>> str(InvalidInstance("P", "is required"))
    'P: is required'
    """

    def __init__(self, field: str, rule: str):
        self.field = field
        self.rule = rule
        super().__init__(f"{field}{_separator(rule)}{rule}")

    def __reduce__(self):
        """Pickle as (field, rule), so the error crosses process boundaries (pools, Dask)."""
        return type(self), (self.field, self.rule)


#: first words of a rule that starts with the offending value (a number or a Python repr)
_VALUE_WORDS = {"True", "False", "None", "inf", "-inf", "nan", "null", "true", "false"}


def show(x: object) -> str:
    """A value as an error message prints it: cut to 40 characters (long lists and strings),
    and safe for integers beyond the 4300-digit conversion limit."""
    try:
        text = repr(x)
    except ValueError:  # an int beyond the 4300-digit conversion limit
        return "<an integer of more than 4300 digits>"
    return text if len(text) <= 40 else text[:37] + "..."


def _separator(rule: str) -> str:
    """'=' when the rule starts with the offending value ("P=0 must be ..."), else ': '."""
    if rule[:1] in ("=", ":"):
        return ""
    first = rule.split(" ", 1)[0]
    if rule[:1].isdigit() or rule[:1] in "-'\"[{(" or first in _VALUE_WORDS:
        return "="
    if first.startswith(("Fraction(", "np.", "array(")):
        return "="
    return ": "


class InvalidOption(InvalidInstance):
    """A bad option or parameter (``--param NAME=VALUE``, a campaign's ``params``,
    ``time_limit``): names it and the rule it breaks, in one line.

    It is bad input like a bad instance (an `InvalidInstance`: exit status 2 on the command
    line, the same one-line message), raised where the input is an option rather than the
    instance (`resilsched.params`, `resilsched.deadline`).

    >>> str(InvalidOption("--param eps", "'x' is not a number for BATCH-LIST"))
    "--param eps='x' is not a number for BATCH-LIST"
    """


class HeuristicRefusal(InvalidInstance):
    """A heuristic refuses a valid instance: it cannot place every job, or its work would pass
    a documented limit. `field` names the heuristic (variant), `rule` what happened.

    The instance itself is valid (an exact model or another heuristic may solve it), so a
    campaign stores the refusal as a row with its reason instead of failing; on the command line
    it is a one-line error like every `InvalidInstance` (exit status 2).

    >>> str(HeuristicRefusal("GS-FFD", "cannot place job 3"))
    'GS-FFD: cannot place job 3'
    """


class InvalidSchedule(AssertionError):
    """A schedule broke a rule of its model (raised by `resilsched.validation`)."""
