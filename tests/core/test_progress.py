"""Progress lines of long commands (resilsched/progress.py)."""

import io
import time

from resilsched.options import Deadline
from resilsched.progress import Heartbeat


def test_heartbeat_prints_after_a_delay_with_the_last_phase():
    stream = io.StringIO()
    with Heartbeat("solve m", Deadline(60.0), after=0.05, every=0.05, stream=stream) as beat:
        beat.phase("root bound 12")
        time.sleep(0.3)
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 2
    assert lines[0].startswith("solve m: 0 s of 60 s; root bound 12")


def test_heartbeat_is_silent_for_short_or_disabled_calls():
    stream = io.StringIO()
    with Heartbeat("x", Deadline(None), after=5.0, stream=stream):
        pass
    with Heartbeat("x", Deadline(None), after=0.0, every=0.01, stream=stream, enabled=False):
        time.sleep(0.05)
    assert stream.getvalue() == ""
