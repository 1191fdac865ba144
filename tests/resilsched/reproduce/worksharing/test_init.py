"""``resilsched reproduce worksharing``: every option has help with its default, and malformed
options are one-line errors with exit status 2, never a traceback."""

import pytest

from resilsched.reproduce import worksharing as reproduction


def _words(text: str) -> str:
    return " ".join(text.split())


def test_every_option_says_its_default(run):
    code, out, _ = run("reproduce", "worksharing", "--help")
    assert code == 0
    text = _words(out)
    for phrase in ("(default 1000; 100 for traces)", "(default all of them for e5, 5 10 for "
                   "traces)", "(default worksharing_results)", "(default min(2, CPU count))",
                   "default <out>/campaign.sqlite"):
        assert phrase in text, phrase
    for experiment in ("table4", "e1-e6", "traces", "all"):
        assert experiment in text


@pytest.mark.parametrize("args, message", [
    (["e5", "--trials", "0"], "argument --trials: 0 must be in [1, 100000]"),
    (["e5", "--trials", "-3"], "argument --trials: -3 must be in [1, 100000]"),
    (["e5", "--trials", "ten"], "argument --trials: 'ten' is not an integer"),
    (["e5", "--trials", "1e9"], "argument --trials: '1e9' is not an integer"),
    (["e5", "--trials", "1000000"], "argument --trials: 1000000 must be in [1, 100000]"),
    (["e5", "--p", "7"], "argument --p: invalid choice: 7 (choose from 5, 10, 25, 50, 100)"),
    (["e5", "--p", "x"], "argument --p: invalid int value: 'x'"),
    (["e5", "--p"], "argument --p: expected at least one argument"),
    (["e5", "--jobs", "0"], "argument --jobs: 0 must be in [1, 1024]"),
    (["e5", "--jobs", "-1"], "argument --jobs: -1 must be in [1, 1024]"),
    (["e9"], "argument what: invalid choice: 'e9' (choose from "),
    (["table4", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_malformed_options_are_one_line_errors(run, args, message):
    code, out, err = run("reproduce", "worksharing", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "usage:" not in err  # one line, no usage block
    assert err.startswith(f"resilsched reproduce worksharing: error: {message}")


def test_unusable_paths_are_one_line_errors(run, tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("")
    code, _, err = run("reproduce", "worksharing", "table4", "--out", a_file)
    assert code == 2 and "Traceback" not in err
    last = err.splitlines()[-1]
    assert last.startswith(f"resilsched reproduce worksharing: error: --out {a_file}")
    code, _, err = run("reproduce", "worksharing", "table4", "--out", tmp_path / "o",
                       "--store", tmp_path)
    assert code == 2 and "Traceback" not in err
    assert err.splitlines()[-1] == (f"resilsched reproduce worksharing: error: --store {tmp_path}: "
                                    "is a directory")
    not_sqlite = tmp_path / "junk.sqlite"
    not_sqlite.write_text("this is not a database" * 100)
    code, _, err = run("reproduce", "worksharing", "e4", "--trials", "2", "--jobs", "1",
                       "--out", tmp_path / "o", "--store", not_sqlite)
    assert code == 2 and "Traceback" not in err
    assert err.splitlines()[-1] == (f"resilsched reproduce worksharing: error: {not_sqlite}: "
                                    "is not a result store: it is a text file, not an SQLite "
                                    "database")


def test_the_script_and_the_module_share_the_program(capsys):
    with pytest.raises(SystemExit) as exc:
        reproduction.main(["e5", "--trials", "0"])
    assert exc.value.code == 2
    assert capsys.readouterr().err == (
        "reproduce_worksharing.py: error: argument --trials: 0 must be in [1, 100000]\n")


def test_e5_binary_chunk_search_writes_its_own_csv(tmp_path, capsys):
    assert reproduction.main(["e5", "--p", "5", "--trials", "3", "--jobs", "1", "--chunk-search",
                              "binary", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "binary search" in out and (tmp_path / "e5_binary.csv").exists()
    assert not (tmp_path / "e5.csv").exists()
