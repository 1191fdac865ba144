"""``python -m resilsched`` is the ``resilsched`` command."""

import sys

from resilsched.cli import main

sys.exit(main())
