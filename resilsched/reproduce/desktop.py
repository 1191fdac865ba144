"""Placeholder, replaced below."""


def main(argv, prog):
    return 0
