"""files.write_atomic: a file is replaced whole or left as it was; files.read_small_file: only
a regular file of sane size is read."""

from __future__ import annotations

import pytest

from bonken_sim.files import (
    CannotRead,
    CannotWrite,
    check_dir_writable,
    read_small_file,
    write_atomic,
)


def _leftovers(folder):
    return [p.name for p in folder.iterdir() if p.name.startswith(".")]


def test_writes_every_line_and_replaces_the_old_file(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text("old\n")
    write_atomic(path, (f"line {i}" for i in range(3)))
    assert path.read_text(encoding="utf-8") == "line 0\nline 1\nline 2\n"
    assert _leftovers(tmp_path) == []


def test_a_failing_generator_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text("old\n")

    def lines():
        yield "new"
        raise RuntimeError("stopped halfway")

    with pytest.raises(RuntimeError, match="stopped halfway"):
        write_atomic(path, lines())
    assert path.read_text() == "old\n"
    assert _leftovers(tmp_path) == []


def test_a_missing_directory_is_named(tmp_path):
    path = tmp_path / "nope" / "out.jsonl"
    with pytest.raises(CannotWrite) as err:
        write_atomic(path, ["x"])
    assert str(err.value) == f"cannot write {path}: directory {path.parent} does not exist"
    assert isinstance(err.value, OSError)


def test_a_directory_in_the_way_is_cannot_write(tmp_path):
    (tmp_path / "out").mkdir()
    with pytest.raises(CannotWrite, match="^cannot write .*out: "):
        write_atomic(tmp_path / "out", ["x"])
    assert _leftovers(tmp_path) == []


def test_check_dir_writable_takes_a_directory_to_be_made_and_refuses_one_below_a_file(
    tmp_path,
):
    check_dir_writable(tmp_path)  # exists
    check_dir_writable(tmp_path / "new" / "deeper")  # made later, parents and all
    assert list(tmp_path.iterdir()) == []  # nothing made, nothing left behind
    afile = tmp_path / "afile"
    afile.write_text("keep\n")
    for path in (afile, afile / "x", afile / "x" / "y"):
        with pytest.raises(CannotWrite) as err:
            check_dir_writable(path)
        assert str(err.value) == f"cannot write {path}: {afile} is not a directory"
    assert afile.read_text() == "keep\n"


def test_read_small_file_reads_a_regular_file_up_to_the_limit(tmp_path):
    path = tmp_path / "r.toml"
    path.write_bytes(b"x" * 10)
    assert read_small_file(path, limit=10) == b"x" * 10
    with pytest.raises(CannotRead) as err:
        read_small_file(path, limit=9)
    assert str(err.value) == f"cannot read {path}: 10 bytes, more than the 9 bytes allowed"
    assert err.value.reason == err.value.strerror == "10 bytes, more than the 9 bytes allowed"
    with pytest.raises(FileNotFoundError):
        read_small_file(tmp_path / "missing.toml")


def test_read_small_file_refuses_devices_fifos_and_directories(tmp_path):
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it would wait for a writer
    for path, why in (("/dev/zero", "not a regular file"), (fifo, "not a regular file")):
        with pytest.raises(CannotRead) as err:
            read_small_file(path)
        assert err.value.reason == why
    with pytest.raises(CannotRead) as err:
        read_small_file(tmp_path)
    assert err.value.reason == "is a directory"
