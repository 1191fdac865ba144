"""Progress lines of long commands (resilsched/progress.py, decision K29): one bar redrawn in
place on a terminal; elsewhere at most one line every 10 s plus a final line."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from resilsched.deadline import Deadline
from resilsched.progress import ERASE, Heartbeat, ProgressBar, progress_bar


class _Tty(io.StringIO):
    def isatty(self):
        return True


class _Clock:
    """A fake `time.perf_counter` the test moves forward."""

    def __init__(self):
        self.now = 1000.0

    def perf_counter(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    import resilsched.progress as progress

    fake = _Clock()
    monkeypatch.setattr(progress, "time", fake)
    return fake


# -- plain lines (a pipe, a CI log) ---------------------------------------------------------

def test_a_quick_run_prints_one_final_line():
    stream = io.StringIO()
    bar = ProgressBar("gap", 100, stream=stream)
    for _ in range(100):
        bar("a case")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1 and "\r" not in stream.getvalue()
    assert lines[0].startswith("[gap] 100/100 (100 %), ") and "elapsed 0:00" in lines[0]
    assert "ETA" not in lines[0] and lines[0].endswith("; a case")
    bar.close()
    assert stream.getvalue().splitlines() == lines  # nothing printed twice


def test_plain_lines_come_at_most_every_ten_seconds_then_a_final_one(clock):
    stream = io.StringIO()
    bar = ProgressBar("campaign", 280, stream=stream, unit="tasks")
    for _ in range(280):  # 35 s of work, a step every 1/8 s
        clock.now += 0.125
        bar.tick()
    lines = stream.getvalue().splitlines()
    assert [line.split(",")[0] for line in lines] == [
        "[campaign] 80/280 tasks (29 %)", "[campaign] 160/280 tasks (57 %)",
        "[campaign] 240/280 tasks (86 %)", "[campaign] 280/280 tasks (100 %)"]
    assert "ETA 0:05" in lines[2] and "8.0/s" in lines[0] and "elapsed 0:35" in lines[3]


def test_an_unknown_total_ends_at_close_and_idle_bars_say_nothing(clock):
    stream = io.StringIO()
    bar = ProgressBar("verify", stream=stream)
    clock.now += 3
    bar.tick(2)
    bar.close()
    assert stream.getvalue() == "[verify] 2, 40.0/min, elapsed 0:03\n"
    idle = io.StringIO()
    ProgressBar("campaign", 10, 10, stream=idle).close()  # everything was stored already
    late = ProgressBar("plan", 10, stream=idle, after=2.0)
    clock.now += 1
    late.tick(5)
    late.close()  # within `after`: nothing
    assert idle.getvalue() == ""


def test_resumed_bars_count_only_new_steps_and_say_lines():
    stream = io.StringIO()
    bar = ProgressBar("campaign", 10, 8, stream=stream, every=0.0)
    bar.say("2 tasks to run")
    bar.tick()
    bar.close()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "[campaign] 2 tasks to run"
    assert lines[1].startswith("[campaign] 9/10 (90 %)") and lines[-1].startswith("[campaign] 9/10")


def test_disabled_bar_prints_nothing():
    stream = _Tty()
    bar = progress_bar("x", 3, 0, False, stream)
    bar.say("hello")
    for _ in range(3):
        bar.tick()
    bar.close()
    assert stream.getvalue() == "" and isinstance(bar, ProgressBar)


def test_dumb_terminals_get_plain_lines(monkeypatch):
    monkeypatch.setenv("TERM", "dumb")
    assert not ProgressBar("x", 3, stream=_Tty()).tty
    monkeypatch.setenv("TERM", "xterm")
    assert ProgressBar("x", 3, stream=_Tty()).tty


# -- a terminal -----------------------------------------------------------------------------

def test_bar_on_a_terminal_redraws_in_place_with_rate_and_eta():
    stream = _Tty()
    bar = ProgressBar("verify", 4, stream=stream)
    assert bar.tty
    for k in range(4):
        time.sleep(0.01)
        bar.tick(1, f"case {k}")
    text = stream.getvalue()
    assert text.count(ERASE) >= 2 and text.endswith("\n") and text.count("\n") == 1
    last = text.rstrip("\n").split(ERASE)[-1]
    assert last.startswith("verify |") and "4/4" in last and "100 %" in last
    assert "/s" in last and "case 3" in last
    bar.tick()  # after the end: nothing more
    assert stream.getvalue() == text


def test_say_on_a_terminal_keeps_the_bar_under_its_line():
    stream = _Tty()
    bar = ProgressBar("campaign", 4, stream=stream)
    bar.tick()
    bar.say("waiting for 3 tasks")
    bar.tick(3)
    text = stream.getvalue()
    assert "[campaign] waiting for 3 tasks\n" in text and text.count("\n") == 2
    assert text.rstrip("\n").split(ERASE)[-1].startswith("campaign |####")


# -- Heartbeat --------------------------------------------------------------------------------

def test_heartbeat_prints_after_a_delay_with_the_last_phase_and_a_last_line():
    stream = io.StringIO()
    with Heartbeat("solve m", Deadline(60.0), after=0.05, every=0.1, stream=stream) as beat:
        beat.phase("root bound 12")
        time.sleep(0.32)
    lines = stream.getvalue().splitlines()
    assert 3 <= len(lines) <= 5  # at 0.05, 0.15, 0.25 s (a loaded machine may lag), and the end
    assert lines[0].startswith("solve m: 0 s of 60 s; root bound 12")
    assert lines[-1] == "solve m: done in 0 s"


def test_heartbeat_on_a_terminal_redraws_one_line():
    stream = _Tty()
    with Heartbeat("solve m", Deadline(2.5), after=0.02, stream=stream) as beat:
        beat.phase("search")
        time.sleep(0.1)
    text = stream.getvalue()
    assert text.startswith(ERASE + "solve m: 0 s of 2.5 s; search")
    assert text.endswith(ERASE + "solve m: done in 0 s\n") and text.count("\n") == 1


def test_heartbeat_is_silent_for_short_or_disabled_calls():
    stream = io.StringIO()
    with Heartbeat("x", Deadline(None), after=5.0, stream=stream):
        pass
    with Heartbeat("x", Deadline(None), after=0.0, every=0.01, stream=stream, enabled=False):
        time.sleep(0.05)
    assert stream.getvalue() == ""


@pytest.mark.parametrize("tty", [False, True])
def test_heartbeat_of_a_call_that_raises_says_no_done(tty):
    """A refusal raised after the first line: no "done" line; on a terminal the drawn line is
    erased so that the error message (printed next) starts a clean line."""
    stream = _Tty() if tty else io.StringIO()
    with pytest.raises(ValueError), Heartbeat("solve m", Deadline(9.0), after=0.01,
                                              every=5.0, stream=stream):
        time.sleep(0.1)
        raise ValueError("refused")
    text = stream.getvalue()
    assert "done" not in text and text.startswith((ERASE if tty else "") + "solve m: 0 s of 9 s")
    assert text.endswith(ERASE) if tty else text.count("\n") == 1


@pytest.mark.parametrize("tty", [False, True])
def test_heartbeat_of_a_result_reported_as_an_error_says_no_done(tty):
    """A call that returns a failure (`succeeded` set False, as `simulate` does when the
    heuristic ran out of its time limit): no "done" line, the drawn line erased."""
    stream = _Tty() if tty else io.StringIO()
    with Heartbeat("simulate h", Deadline(9.0), after=0.01, every=5.0, stream=stream) as beat:
        time.sleep(0.1)
        beat.succeeded = False
    text = stream.getvalue()
    assert "done" not in text and text.startswith((ERASE if tty else "") + "simulate h: 0 s")
    assert text.endswith(ERASE) if tty else text.count("\n") == 1


# -- the commands, through a pipe and on a pseudo-terminal -------------------------------------

GAP = [sys.executable, "-m", "resilsched", "gap", "--family", "coschedule", "--json"]


def _on_a_pty(cmd: list[str]) -> tuple[int, str]:
    """Run `cmd` with its standard error on a pseudo-terminal of 120 columns; (exit status,
    what it wrote there)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**os.environ, "TERM": "xterm"}
    env.pop("COLUMNS", None)
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=120), b"".join(chunks).decode()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty semantics of Linux")
def test_gap_on_a_terminal_is_one_bar_redrawn_in_place():
    status, err = _on_a_pty(GAP)
    assert status == 0, err
    assert err.count(ERASE) >= 2 and err.count("\n") == 1 and err.endswith("\n"), repr(err)
    final = err.rstrip("\r\n").split(ERASE)[-1]
    assert final.startswith("gap |########################| 6/6 100 %") and len(final) < 120


def test_gap_through_a_pipe_prints_one_line_and_nothing_under_quiet(run):
    """In-process (the `run` fixture): standard error is captured, not a terminal, as a
    pipe is."""
    code, _, err = run(*GAP[3:])
    assert code == 0, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("[gap] 6/6 (100 %)"), err
    assert "coschedule-s106" in lines[0] and "\r" not in err
    code, _, err = run(*GAP[3:], "-q")
    assert code == 0 and err == ""


def _campaign(store) -> list[str]:
    spec = Path(__file__).resolve().parents[2] / "examples" / "rigid-qbar.toml"
    return [sys.executable, "-m", "resilsched", "campaign", "run", str(spec), "--store",
            str(store), "--jobs", "1"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty semantics of Linux")
def test_campaign_run_on_a_terminal_and_through_a_pipe(run, tmp_path):
    """The issue's `campaign run ... 2>&1 | cat`: through a pipe, what it runs and one final
    count (not a line every 5 %); on a terminal, the same line and one bar redrawn. The pipe
    is the captured standard error of an in-process run (the `run` fixture)."""
    code, _, err = run(*_campaign(tmp_path / "pipe.sqlite")[3:])
    assert code == 0, err
    lines = err.splitlines()
    assert len(lines) == 2 and "\r" not in err, err
    assert lines[0].startswith("[rigid-qbar] 120 tasks to run")
    assert lines[1].startswith("[rigid-qbar] 120/120 tasks (100 %)")
    status, err = _on_a_pty(_campaign(tmp_path / "tty.sqlite"))
    assert status == 0, err
    assert err.count("\n") == 2 and err.count(ERASE) >= 1, repr(err)
    assert "[rigid-qbar] 120 tasks to run" in err
    assert err.rstrip("\r\n").split(ERASE)[-1].startswith("rigid-qbar |####")
