"""replay of a file that is not a trace: one line naming the file, exit 2, no traceback."""

from __future__ import annotations

import json

import pytest

from bonken_sim.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_binary_file_is_not_a_trace_file(tmp_path, capsys):
    path = tmp_path / "some.parquet"
    path.write_bytes(b"PAR1\x15\x04\x15\x80\xff\x01\x00\x00\xfe\xc3\x28" * 64)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == ""
    assert err == f"bonken-sim: error: not a trace file: {path} is not UTF-8 JSON lines\n"


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_a_file_without_records_is_an_error(tmp_path, capsys, content):
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == ""
    assert err == (
        f"bonken-sim: error: no records in {path}: a trace file has one JSON record per line\n"
    )


def test_an_empty_file_among_traces_is_named(tmp_path, capsys):
    trace = tmp_path / "t.jsonl"
    assert main(["trace", "--deals", "1", "--seed", "1", "--out", str(trace)]) == 0
    assert len([json.loads(x) for x in trace.read_text().splitlines()]) == 12
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    capsys.readouterr()
    code, _, err = run(capsys, "replay", str(trace), str(empty))
    assert code == 2 and err.count("\n") == 1 and f"no records in {empty}" in err
    code, out, _ = run(capsys, "replay", str(trace))
    assert code == 0 and out == "12 legal, 0 illegal\n"


@pytest.mark.parametrize(
    "content, line, what",
    [
        ("hello\n", 1, "is not JSON (Expecting value at column 1)"),
        ("\n[1, 2]\n", 2, "is an array, not a trace record (a JSON object)"),
        ("5\n", 1, "is a number, not a trace record (a JSON object)"),
        (
            "[" * 50_000 + "]" * 50_000,
            1,
            "is not JSON (lists or objects nested deeper than 64 levels)",
        ),
    ],
    ids=["text", "array", "number", "deep"],
)
def test_a_line_that_is_not_a_record_is_an_error(tmp_path, capsys, content, line, what):
    path = tmp_path / "text.jsonl"
    path.write_text(content)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == ""
    assert err == f"bonken-sim: error: not a trace file: {path}:{line} {what}\n"


def test_a_truncated_trace_is_an_error_naming_its_line(tmp_path, capsys):
    trace = tmp_path / "t.jsonl"
    assert main(["trace", "--deals", "1", "--seed", "1", "--out", str(trace)]) == 0
    lines = trace.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:3]) + "\n" + lines[3][: len(lines[3]) // 2])
    capsys.readouterr()
    code, out, err = run(capsys, "replay", str(cut))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"bonken-sim: error: not a trace file: {cut}:4 is not JSON (")
    # an illegal play in a well-formed record is still counted, exit 1
    record = json.loads(lines[0])
    record["plays"][0], record["plays"][1] = record["plays"][1], record["plays"][0]
    cut.write_text(json.dumps(record) + "\n" + lines[1] + "\n")
    code, out, _ = run(capsys, "replay", str(cut))
    assert code == 1 and out.endswith("1 legal, 1 illegal\n")


@pytest.mark.parametrize("newline", [False, True], ids=["endless", "ended"])
def test_a_line_too_long_for_a_record_is_refused_before_it_is_read_whole(tmp_path, capsys, newline):
    from bonken_sim.cli.play import MAX_RECORD_CHARS

    path = tmp_path / "zeros.jsonl"
    path.write_text("\0" * (MAX_RECORD_CHARS + 10) + ("\n" if newline else ""))
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == ""
    assert err == (
        f"bonken-sim: error: not a trace file: {path}:1 is longer than "
        f"{MAX_RECORD_CHARS:,} characters (a trace record is a few kB)\n"
    )


def test_a_record_of_the_longest_allowed_line_is_read(tmp_path, capsys):
    from bonken_sim.cli.play import MAX_RECORD_CHARS

    trace = tmp_path / "t.jsonl"
    assert main(["trace", "--deals", "1", "--seed", "1", "--out", str(trace)]) == 0
    record = trace.read_text().splitlines()[0]
    padded = record[:-1] + " " * (MAX_RECORD_CHARS - len(record)) + "}"  # JSON allows spaces
    assert len(padded) == MAX_RECORD_CHARS
    trace.write_text(padded + "\n")
    capsys.readouterr()
    code, out, _ = run(capsys, "replay", str(trace))
    assert code == 0 and out == "1 legal, 0 illegal\n"
