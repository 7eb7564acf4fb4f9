"""``--executor process|dask`` on run, game and tournament: the same bytes as in-process, a
lost worker's task retried (Dask) or its pool recreated (process pool), every chunk exactly
once in the manifest, ``--resume`` with any executor, and the one-line errors."""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from bonken_sim.analyses.ladder import to_json
from bonken_sim.analyses.tournament import run_tournament
from bonken_sim.cli import main
from bonken_sim.runs.deals import ChunkTask, RunError, make_config, play_chunk, versions
from bonken_sim.runs.deals import run as run_dir
from bonken_sim.runs.executors import DASK_EXTRA, WorkerMismatch, dask_available
from bonken_sim.runs.games import make_game_config, run_games
from bonken_sim.runs.storage import read_manifest, result_digest, sha256_file, verify_run
from tests.runs._dying_task import dying_play_chunk

simulate = importlib.import_module("bonken_sim.runs.deals")  # the module, not the function

needs_dask = pytest.mark.skipif(
    not dask_available(),
    reason="the dask extra is not installed (pip install 'bonken-sim[dask]'; make test does)",
)

KW = dict(deals=24_000, seed=44, strategies="basic,random,basic,random", chunk_size=2000)
ARGS = ["--deals", "24000", "--seed", "44", "--strategies", "basic,random,basic,random",
        "--chunk-size", "2000", "--quiet"]  # fmt: skip
GAME = ["--games", "3000", "--seed", "8", "--chunk-size", "500", "--quiet"]
TOURNAMENT = ["--games", "1200", "--profiles", "basic,random,basic-nodouble", "--json"]


def _parts(out: Path) -> list[tuple[int, str, str]]:
    return [(p["index"], p["sha256"], p["deals_sha256"]) for p in read_manifest(out)["parts"]]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[Path, list]:
    out = tmp_path_factory.mktemp("ref") / "run"
    run_dir(**KW, out=out)
    return out, _parts(out)


def assert_same_run(out: Path, reference) -> None:
    """Every chunk exactly once, each part's SHA-256 that of the in-process run and of the
    file on disk, and the same result digest."""
    ref_out, ref_parts = reference
    m = read_manifest(out)
    assert m["state"] == "complete"
    assert [p["index"] for p in m["parts"]] == list(range(len(ref_parts)))
    assert _parts(out) == ref_parts
    assert verify_run(out) == []
    assert result_digest(out) == result_digest(ref_out)
    assert not list(out.glob(".*.tmp")) and not list((out / "_deals").glob(".*.tmp"))


def _game_digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): sha256_file(p) for p in root.rglob("part-*.parquet")}


@pytest.fixture(scope="module")
def game_reference(tmp_path_factory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("gref") / "g"
    assert main(["game", *GAME, "--out", str(out)]) == 0
    return _game_digests(out)


@pytest.fixture(scope="module")
def tournament_reference() -> dict:
    return to_json(run_tournament(1200, 1, ["basic", "random", "basic-nodouble"], threads=2))


@pytest.fixture(scope="module")
def inproc_client():
    """A Dask LocalCluster in this process (threads), for speed."""
    if not dask_available():
        pytest.skip("the dask extra is not installed")
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def proc_cluster():
    """A Dask LocalCluster of 2 worker processes."""
    if not dask_available():
        pytest.skip("the dask extra is not installed")
    import logging

    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield cluster, client


# --- the same bytes ----------------------------------------------------------------------


def test_process_pool_same_part_bytes(reference, tmp_path):
    out = tmp_path / "p"
    assert main(["run", *ARGS, "--executor", "process", "--workers", "2", "--out", str(out)]) == 0
    assert_same_run(out, reference)
    session = read_manifest(out)["sessions"][-1]
    assert session["executor"] == "process" and session["workers"] == 2
    assert session["threads"] == 1 and session["write_parts"] == "workers"


@needs_dask
def test_dask_in_process_cluster_same_bytes_either_writer(reference, inproc_client, tmp_path):
    for who in ("workers", "driver"):
        cfg = make_config(**KW, out=tmp_path / who, write_parts=who)
        r = run_dir(cfg, executor=inproc_client.get_executor())
        assert r.executor == "executor" and r.workers == 2
        assert_same_run(r.out, reference)


@needs_dask
def test_dask_scheduler_address_same_bytes(reference, proc_cluster, tmp_path):
    cluster, _ = proc_cluster
    out = tmp_path / "d"
    args = ["run", *ARGS, "--executor", "dask", "--scheduler", cluster.scheduler_address]
    assert main([*args, "--out", str(out)]) == 0
    assert_same_run(out, reference)


@needs_dask
def test_game_on_a_local_dask_cluster_of_two_processes(game_reference, tmp_path):
    out = tmp_path / "g"
    args = ["game", *GAME, "--executor", "dask", "--workers", "2", "--out", str(out)]
    assert main(args) == 0
    assert _game_digests(out) == game_reference
    session = json.loads((out / "_manifest.json").read_text())["sessions"][-1]
    assert session["executor"] == "dask" and session["workers"] == 2


def test_game_and_tournament_on_a_process_pool(
    game_reference, tournament_reference, tmp_path, capsys
):
    out = tmp_path / "g"
    args = ["game", *GAME, "--executor", "process", "--workers", "2", "--write-parts", "driver"]
    assert main([*args, "--out", str(out)]) == 0
    assert _game_digests(out) == game_reference
    capsys.readouterr()
    args = ["tournament", *TOURNAMENT, "--executor", "process", "--workers", "2"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == tournament_reference


@needs_dask
def test_game_and_tournament_on_an_in_process_dask_cluster(
    game_reference, tournament_reference, inproc_client, tmp_path, monkeypatch
):
    from bonken_sim.analyses import tournament

    cfg = make_game_config(3000, 8, chunk_size=500, out=tmp_path / "g", write_parts="driver")
    run_games(cfg, executor=inproc_client.get_executor())
    assert _game_digests(tmp_path / "g") == game_reference
    monkeypatch.setattr(tournament, "TASK_SETS", 30)  # many small tasks, any finishing order
    doc = run_tournament(
        1200, 1, ["basic", "random", "basic-nodouble"], executor=inproc_client.get_executor()
    )
    assert to_json(doc) == tournament_reference


# --- lost workers -------------------------------------------------------------------------


def test_process_pool_recreated_after_a_worker_is_killed(reference, tmp_path, monkeypatch):
    monkeypatch.setattr(simulate, "play_chunk", dying_play_chunk)
    (tmp_path / "die-once").touch()
    r = run_dir(**KW, out=tmp_path / "k", executor="process", workers=2)  # options, no config
    assert (tmp_path / "died").exists() and r.restarts == 1
    assert read_manifest(r.out)["sessions"][-1]["restarts"] == 1
    assert_same_run(r.out, reference)


def test_process_pool_that_keeps_dying_stops_with_the_resume_hint(reference, tmp_path, monkeypatch):
    monkeypatch.setattr(simulate, "play_chunk", dying_play_chunk)
    out = tmp_path / "x"
    cfg = make_config(**KW, out=out, executor="process", workers=2)
    with pytest.raises(RunError) as err:
        run_dir(cfg)
    msg = str(err.value)
    assert msg.startswith("the process executor failed: WorkersLost: worker processes died 4 ")
    assert msg.endswith(
        f"deals are saved in {out}; resume with: bonken-sim run --resume --out {out}"
    )
    m = read_manifest(out)
    assert m["state"] == "incomplete" and len(m["parts"]) < len(reference[1])
    assert verify_run(out) == []
    # resumed (on another pool, without the dying task) it ends with the same bytes
    monkeypatch.undo()
    args = ["run", "--resume", "--out", str(out), "--executor", "process", "--workers", "1"]
    assert main([*args, "--quiet"]) == 0
    assert_same_run(out, reference)


@needs_dask
def test_dask_worker_killed_mid_task_the_task_is_retried(
    reference, proc_cluster, tmp_path, monkeypatch
):
    _, client = proc_cluster
    client.wait_for_workers(2)
    monkeypatch.setattr(simulate, "play_chunk", dying_play_chunk)
    (tmp_path / "die-once").touch()
    r = run_dir(make_config(**KW, out=tmp_path / "k"), executor=client.get_executor(pure=False))
    assert (tmp_path / "died").exists()
    assert_same_run(r.out, reference)
    # (the nanny restarts the killed worker; no later test needs both workers)


# --- resume with every executor ----------------------------------------------------------


def _interrupted_copy(reference, dest: Path) -> Path:
    """What a killed run leaves: some parts listed, one listed part damaged, one complete
    part not listed, a temporary file of a killed writer."""
    shutil.copytree(reference[0], dest)
    m = read_manifest(dest)
    m["state"] = "incomplete"
    m["parts"] = [p for p in m["parts"] if p["index"] not in (3, 7, 8)]
    (dest / "_manifest.json").write_text(json.dumps(m))
    with open(dest / "part-000005.parquet", "r+b") as fh:
        fh.seek(100)
        fh.write(b"\0\0\0\0")
    (dest / "part-000008.parquet").unlink()
    (dest / ".part-000007-abc123.parquet.tmp").write_bytes(b"half a part")
    return dest


@pytest.mark.parametrize("executor", ["process", "dask-inproc", "dask-driver"])
def test_resume_with_any_executor(reference, executor, tmp_path, request):
    """(A run stopped on a process pool is resumed on another one in the test above.)"""
    out = _interrupted_copy(reference, tmp_path / "r")
    if executor == "process":
        assert (
            main(
                [
                    "run",
                    "--resume",
                    "--out",
                    str(out),
                    "--executor",
                    "process",
                    "--workers",
                    "2",
                    "--quiet",
                ]
            )
            == 0
        )
    else:
        if not dask_available():
            pytest.skip("the dask extra is not installed")
        client = request.getfixturevalue("inproc_client")
        who = "driver" if executor == "dask-driver" else "workers"
        r = run_dir(
            make_config(out=out, resume=True, write_parts=who), executor=client.get_executor()
        )
        assert r.deals_this_session == 4 * KW["chunk_size"]
    assert_same_run(out, reference)


# --- where the parts must live, and the errors --------------------------------------------


class _ElsewhereExecutor(Executor):
    """Runs chunk tasks in threads but writes their parts into another directory: what a
    worker on a machine that does not share the run directory does."""

    def __init__(self, elsewhere: Path):
        self.pool = ThreadPoolExecutor(2)
        self.elsewhere = elsewhere
        self._max_workers = 2

    def submit(self, fn, task, *args, **kwargs) -> Future:
        (self.elsewhere / "_deals").mkdir(parents=True, exist_ok=True)
        return self.pool.submit(fn, replace(task, root=str(self.elsewhere)))

    def shutdown(self, wait=True, *, cancel_futures=False):
        self.pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def test_parts_a_worker_writes_where_the_driver_cannot_see_them(tmp_path):
    out = tmp_path / "run"
    with _ElsewhereExecutor(tmp_path / "other-machine") as ex, pytest.raises(RunError) as err:
        run_dir(make_config(deals=3000, seed=1, chunk_size=1000, out=out), executor=ex)
    msg = str(err.value)
    assert "part-00000" in msg and "missing here" in msg and "shared filesystem" in msg
    assert "--write-parts driver" in msg and "resume with: bonken-sim run --resume" in msg
    assert read_manifest(out)["state"] == "incomplete"


def test_a_worker_running_another_engine_refuses(tmp_path):
    cfg = make_config(deals=100, seed=1)
    driver = {**versions(), "engine": "0123456789abcdef"}
    with pytest.raises(WorkerMismatch, match="runs engine .* but the driver runs 0123456789abcdef"):
        play_chunk(ChunkTask(cfg, 0, None, {}, driver))


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "--deals", "10", "--executor", "threads"],
         "--executor must be local, process or dask, got 'threads'"),
        (["run", "--deals", "10", "--workers", "2"],
         "--workers needs --executor process or dask (in-process threads: --threads)"),
        (["run", "--deals", "10", "--executor", "process", "--workers", "0"],
         "--workers must be a whole number from 1 to 1024, got '0'"),
        (["run", "--deals", "10", "--scheduler", "tcp://127.0.0.1:8786"],
         "--scheduler needs --executor dask"),
        (["run", "--deals", "10", "--executor", "process", "--write-parts", "me"],
         "--write-parts must be workers or driver, got 'me'"),
        (["game", "--games", "10", "--executor", "process", "--workers", "many"],
         "--workers must be a whole number from 1 to 1024, got 'many'"),
        (["tournament", "--games", "10", "--profiles", "basic,random", "--executor", "mpi"],
         "--executor must be local, process or dask, got 'mpi'"),
    ],
)  # fmt: skip
def test_executor_option_errors(args, message, capsys, tmp_path):
    assert main([*args, "--out", str(tmp_path / "o")] if args[0] != "tournament" else args) == 2
    err = capsys.readouterr().err
    assert err == f"bonken-sim: error: {message}\n"
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command", [
    ["run", "--deals", "10"], ["game", "--games", "10"],
    ["tournament", "--games", "10", "--profiles", "basic,random"],
])  # fmt: skip
def test_dask_without_the_extra_is_one_line(command, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    assert main([*command, "--executor", "dask"]) == 2
    assert capsys.readouterr().err == f"bonken-sim: error: {DASK_EXTRA}\n"
    assert DASK_EXTRA == "--executor dask needs the dask extra: pip install 'bonken-sim[dask]'"


@needs_dask
def test_an_unreachable_scheduler_is_one_line_and_touches_nothing(capsys, tmp_path):
    import dask

    out = tmp_path / "o"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code = main(["run", "--deals", "10", "--executor", "dask", "--scheduler",
                     "tcp://127.0.0.1:9", "--out", str(out)])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("bonken-sim: error: cannot connect to the Dask scheduler at "
                          "tcp://127.0.0.1:9") and err.count("\n") == 1  # fmt: skip
    assert not out.exists()
