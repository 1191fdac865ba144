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


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_bar_on_a_terminal_redraws_in_place_with_rate_and_eta():
    from resilsched.progress import ProgressBar

    stream = _Tty()
    bar = ProgressBar("verify", 4, stream=stream)
    assert bar.tty
    for k in range(4):
        time.sleep(0.01)
        bar.tick(1, f"case {k}")
    text = stream.getvalue()
    assert text.count("\r\x1b[K") >= 2 and text.endswith("\n")  # redrawn, then finished
    last = text.rstrip("\n").split("\r\x1b[K")[-1]
    assert last.startswith("verify |") and "4/4" in last and "100 %" in last
    assert "/s" in last and "case 3" in last
    bar.tick()  # after the end: nothing more
    assert stream.getvalue() == text


def test_bar_elsewhere_prints_plain_periodic_lines():
    from resilsched.progress import ProgressBar

    stream = io.StringIO()
    bar = ProgressBar("gap", 100, stream=stream)
    for _ in range(100):
        bar("a case")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 20  # every 5 %
    assert lines[-1].startswith("[gap] 100/100 (100 %), ") and "elapsed 0:00" in lines[-1]
    assert "ETA" in lines[0] and "\r" not in stream.getvalue()
    bar.close()
    assert len(stream.getvalue().splitlines()) == 20  # nothing printed twice


def test_bar_resumed_counts_only_new_steps_and_says_lines():
    from resilsched.progress import ProgressBar

    stream = io.StringIO()
    bar = ProgressBar("campaign", 10, 8, stream=stream, every=0.0)
    bar.say("2 tasks to run")
    bar.tick()
    bar.close()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "[campaign] 2 tasks to run"
    assert lines[1].startswith("[campaign] 9/10 (90 %)") and lines[-1].startswith("[campaign] 9/10")


def test_disabled_bar_prints_nothing():
    from resilsched.progress import ProgressBar, progress_bar

    stream = _Tty()
    bar = progress_bar("x", 3, 0, False, stream)
    bar.say("hello")
    for _ in range(3):
        bar.tick()
    bar.close()
    assert stream.getvalue() == "" and isinstance(bar, ProgressBar)


def test_gap_progress_plain_lines_and_nothing_under_quiet(capsys):
    from resilsched.cli import main

    assert main(["gap", "--family", "coschedule", "--json"]) == 0
    err = capsys.readouterr().err
    assert "[gap] 6/6 (100 %)" in err and "coschedule-s106" in err
    assert main(["gap", "--family", "coschedule", "--json", "-q"]) == 0
    assert capsys.readouterr().err == ""
