"""Paper reproductions, run by ``resilsched reproduce FAMILY [OPTIONS...]``.

One module per family, each with ``main(argv, prog) -> int`` (exit status 0, 2 on bad input or a
campaign mismatch, 130 on Ctrl-C) that parses its own options, runs its simulations as resumable
campaigns (`resilsched.campaign`), writes CSV files (and PNG plots; matplotlib is imported only
to draw, optional extra ``resilsched[plot]``) into its ``--out`` folder and prints a summary beside
the paper's numbers. A family names its reproduction in its registration
(`resilsched.plugin.Reproduction`); ``scripts/reproduce_<family>.py`` are thin wrappers.
"""
