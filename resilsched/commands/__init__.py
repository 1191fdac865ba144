"""The subcommands of ``resilsched``, one module each, in the order ``resilsched --help``
lists them (`COMMANDS`). Each module owns its parser, ``add_parser(sub)``, and its handler,
set as the parser's ``func``; what several share (parser classes, argparse types, option
groups, reading the instance, printing the result) is in `resilsched.commands.args`.
`resilsched.cli` builds the parser from them and handles the errors."""

#: the modules of the subcommands, in the order of ``resilsched --help``
COMMANDS = ("list", "generate", "solve", "simulate", "gap", "check", "trace", "reproduce",
            "campaign", "report", "library", "export", "plot")
