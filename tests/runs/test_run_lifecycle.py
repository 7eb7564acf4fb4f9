"""The one run-directory lifecycle (runs/directory.py) as deal runs and game runs both see it:
SIGTERM stops either like Ctrl-C (resumable, exit 130, a resume hint), ``--resume`` replays
every part whose size or SHA-256 no longer matches, and refuses a run written by another
engine. Before the lifecycle was shared, a game run died on SIGTERM with nothing saved and
resumed runs of another engine."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bonken_sim.cli import main
from bonken_sim.runs.storage import sha256_file

KINDS = {
    "run": [
        "run", "--deals", "24000", "--seed", "31", "--chunk-size", "1000",
        "--strategies", "basic,random,random,basic",
    ],
    "game": ["game", "--games", "10000", "--seed", "9", "--chunk-size", "500", "--threads", "1"],
}  # fmt: skip
#: a file of each kind's parts: one replaced by same-size garbage, one cut short
DAMAGED = {
    "run": ("part-000003.parquet", "_deals/part-000005.parquet"),
    "game": ("part-000002.parquet", "_deals/part-000007.parquet"),
}


def _digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): sha256_file(p) for p in root.rglob("part-*.parquet")}


def _resume(kind: str, out: Path, capsys) -> None:
    # a deal run takes its options from the run; a game run is given them again
    args = ["run"] if kind == "run" else KINDS[kind]
    code = main([*args, "--out", str(out), "--resume", "--quiet"])
    assert code == 0, capsys.readouterr().err


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, dict[str, str]]:
    refs = {}
    for kind, args in KINDS.items():
        out = tmp_path_factory.mktemp(kind) / "ref"
        assert main([*args, "--out", str(out), "--quiet"]) == 0
        refs[kind] = _digests(out)
    return refs


def _parts(out: Path) -> int:
    try:
        return len(json.loads((out / "_manifest.json").read_text())["parts"])
    except (OSError, ValueError, KeyError):
        return 0


@pytest.mark.parametrize("kind", KINDS)
def test_sigterm_stops_either_kind_resumably(kind, tmp_path, capsys, reference):
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from bonken_sim.cli import main; sys.exit(main())",
         *KINDS[kind], "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    t0 = time.monotonic()
    while _parts(out) < 1:
        if proc.poll() is not None:
            pytest.fail(f"the run ended early: {proc.stderr.read()}")
        if time.monotonic() - t0 > 120:
            proc.kill()
            pytest.fail("the run wrote no part in time")
        time.sleep(0.005)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err  # 128 + SIGTERM, as a shell reports it
    assert "interrupted: " in err and "--resume" in err and "Traceback" not in err
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["state"] == "incomplete"
    assert 0 < len(manifest["parts"]) < len(reference[kind]) // 2
    _resume(kind, out, capsys)
    assert json.loads((out / "_manifest.json").read_text())["state"] == "complete"
    assert _digests(out) == reference[kind]
    assert not [p for p in out.rglob(".*")], "temporary files left behind"


@pytest.mark.parametrize("kind", KINDS)
def test_resume_replays_a_part_changed_in_size_or_content(kind, tmp_path, capsys, reference):
    out = tmp_path / "run"
    assert main([*KINDS[kind], "--out", str(out), "--quiet"]) == 0
    same_size, cut = (out / name for name in DAMAGED[kind])
    data = bytearray(same_size.read_bytes())
    data[len(data) // 2] ^= 0xFF
    same_size.write_bytes(bytes(data))
    cut.write_bytes(cut.read_bytes()[:-10])
    assert _digests(out) != reference[kind]
    _resume(kind, out, capsys)
    assert _digests(out) == reference[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_resume_refuses_a_run_of_another_engine(kind, tmp_path, capsys):
    out = tmp_path / "run"
    assert main([*KINDS[kind], "--out", str(out), "--quiet"]) == 0
    path = out / "_manifest.json"
    manifest = json.loads(path.read_text())
    manifest["versions"]["engine"] = "0123456789abcdef"
    path.write_text(json.dumps(manifest))
    args = ["run"] if kind == "run" else KINDS[kind]
    code = main([*args, "--out", str(out), "--resume", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"bonken-sim: error: --resume: {out} was written by another version")
    assert "engine 0123456789abcdef" in err and err.count("\n") == 1
    assert json.loads(path.read_text()) == manifest  # nothing touched


def _one_line_error(capsys, code: int) -> str:
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("bonken-sim: error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    "kind, other, held",
    [("run", "game", "a deal run, not a game run"), ("game", "run", "a game run, not a deal run")],
)
def test_force_never_clears_a_run_of_the_other_kind(kind, other, held, tmp_path, capsys):
    out = tmp_path / "run"
    assert main([*KINDS[kind], "--out", str(out), "--quiet"]) == 0
    before = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    code = main([*KINDS[other], "--out", str(out), "--force", "--quiet"])
    err = _one_line_error(capsys, code)
    assert f"--force refuses to clear {out}: it holds {held}" in err
    after = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before  # nothing touched


@pytest.mark.parametrize(
    "kind, other, held",
    [("run", "game", "a deal run, not a game run"), ("game", "run", "a game run, not a deal run")],
)
def test_a_run_of_the_other_kind_is_refused_without_offering_force_or_resume(
    kind, other, held, tmp_path, capsys
):
    out = tmp_path / "run"
    assert main([*KINDS[kind], "--out", str(out), "--quiet"]) == 0
    before = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    code = main([*KINDS[other], "--out", str(out), "--quiet"])
    err = _one_line_error(capsys, code)
    assert err == (
        f"bonken-sim: error: --out {out} holds {held}; choose another directory "
        "(nothing there is touched)\n"
    )
    after = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before


@pytest.mark.parametrize("kind", KINDS)
def test_force_clears_everything_of_the_run_it_replaces(kind, tmp_path, capsys, reference):
    out = tmp_path / "run"
    assert main([*KINDS[kind], "--out", str(out), "--quiet"]) == 0
    (out / "_report" / "figures").mkdir(parents=True)
    (out / "_report" / "report.md").write_text("the report of the old run")
    (out / "_report" / "figures" / "scores.png").write_bytes(b"png")
    assert main([*KINDS[kind], "--out", str(out), "--force", "--quiet"]) == 0
    assert not (out / "_report").exists()
    assert _digests(out) == reference[kind]


def test_a_resume_hint_quotes_a_path_with_spaces(tmp_path):
    import shlex

    from bonken_sim.runs.deals import RunInterrupted
    from bonken_sim.runs.deals import run as run_dir

    out = tmp_path / "my runs" / "run 1"

    def stop(done, total):
        if done >= 2000:
            raise KeyboardInterrupt

    with pytest.raises(RunInterrupted) as info:
        run_dir(deals=24_000, seed=3, chunk_size=1000, out=out, progress=stop)
    hint = f"resume with: bonken-sim run --resume --out {shlex.quote(str(out))}"
    assert info.value.message.endswith(hint) and "'" in hint


def test_a_game_resume_mismatch_names_the_option(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["game", "--games", "100", "--seed", "1", "--out", str(out), "--quiet"]) == 0
    code = main(["game", "--games", "100", "--seed", "2", "--out", str(out), "--resume", "--quiet"])
    err = _one_line_error(capsys, code)
    assert f"{out} holds a different game run: --seed 2 differs from the run's 1;" in err
    code = main(["game", "--games", "100", "--seed", "1", "--out", str(out), "--resume",
                 "--doubling", "off", "--quiet"])  # fmt: skip
    err = _one_line_error(capsys, code)
    assert "--doubling off differs from the run's on" in err


@pytest.mark.parametrize("kind", KINDS)
def test_parts_are_written_in_a_hidden_directory_no_reader_looks_into(
    kind, tmp_path, monkeypatch, reference
):
    import os

    real = os.replace
    moves: list[tuple[Path, Path]] = []

    def spy(src, dst):
        moves.append((Path(src), Path(dst)))
        return real(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    out = tmp_path / "run"
    assert main([*KINDS[kind], "--out", str(out), "--quiet"]) == 0
    monkeypatch.undo()
    parts = [(src, dst) for src, dst in moves if dst.suffix == ".parquet"]
    assert len(parts) == len(reference[kind])
    for src, dst in parts:
        # a killed writer's half file is never beside the parts a glob or a reader picks up
        assert src.parent == dst.parent / ".tmp", src
    assert not list(out.rglob(".tmp")), "a finished run leaves no temporary directory"


def test_resume_removes_what_killed_writers_left(tmp_path, capsys, reference):
    out = tmp_path / "run"
    assert main([*KINDS["run"], "--out", str(out), "--quiet"]) == 0
    manifest = json.loads((out / "_manifest.json").read_text())
    manifest["state"] = "incomplete"
    manifest["parts"] = manifest["parts"][:3]
    (out / "_manifest.json").write_text(json.dumps(manifest))
    (out / ".tmp").mkdir()
    (out / ".tmp" / "part-000003.parquet.tmp").write_bytes(b"PAR1 half a file")
    (out / "_deals" / ".part-000003.parquet.tmp").write_bytes(b"PAR1")  # older versions
    _resume("run", out, capsys)
    assert _digests(out) == reference["run"]
    assert not [p for p in out.rglob(".*")], "temporary files left behind"
