"""Subcommands of ``resilsched`` that live outside `resilsched.cli` (each module exposes
``add_parsers(sub)``, called from `resilsched.cli.build_parser`)."""
