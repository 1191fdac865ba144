"""Errors raised at the boundary of the toolkit (docs/architecture.md, "Conventions")."""


class InvalidInstance(ValueError):
    """Bad input: names the offending field and the rule it breaks, in one line.

    >>> str(InvalidInstance("jobs[3].p", "12 exceeds P=8"))
    'jobs[3].p=12 exceeds P=8'
    """

    def __init__(self, field: str, rule: str):
        self.field = field
        self.rule = rule
        sep = (
            ""
            if rule[:1] in ("=", ":")
            else ("=" if rule[:1].isdigit() or rule[:1] in "-'\"" else ": ")
        )
        super().__init__(f"{field}{sep}{rule}")


class InvalidSchedule(AssertionError):
    """A schedule broke a rule of its model (raised by `resilsched.validation`)."""
