"""The jobs benchmark: the toy kernel's game, the --jobs option, and whole commands timed
against the kernel."""

from __future__ import annotations

import subprocess
import sys

import numba
import pytest

from bonken_sim._core.rng import seed_key
from bonken_sim.bench.jobs import (
    JOBS,
    check_jobs,
    parse_jobs,
    run_jobs,
    this_package_first,
    time_command,
)
from bonken_sim.cli.main import main
from bonken_sim.engine.yardstick import TOY_BLOCKS, toy_playouts
from tests.reference.rng import deal_hands


def lowest_card_tricks(seed: int, deal: int) -> int:
    """Seat 0's tricks when every seat plays its lowest legal card, no trumps, seat 1 leads."""
    hands = [set(h) for h in deal_hands(seed, deal)]
    leader, tricks = 1, 0
    for _ in range(13):
        led = min(hands[leader])
        hands[leader].remove(led)
        best, winner = led, leader
        for pos in range(1, 4):
            p = (leader + pos) % 4
            follow = [c for c in hands[p] if c // 13 == led // 13]
            c = min(follow or hands[p])
            hands[p].remove(c)
            if c // 13 == led // 13 and c > best:
                best, winner = c, p
        tricks += winner == 0
        leader = winner
    return tricks


def test_toy_kernel_plays_the_lowest_legal_card_on_the_engines_deals():
    key = seed_key(9)
    per_deal = [toy_playouts(key, 400 + i, 1) for i in range(60)]
    assert per_deal == [lowest_card_tricks(9, 400 + i) for i in range(60)]
    assert 0 < sum(per_deal) < 13 * 60


@pytest.mark.parametrize("n", [0, 1, 7, TOY_BLOCKS + 3, 3 * TOY_BLOCKS - 1])
def test_toy_kernel_plays_every_deal_once_on_any_thread_count(n):
    key = seed_key(10)
    expected = sum(toy_playouts(key, 50 + i, 1) for i in range(n))
    for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
        numba.set_num_threads(threads)
        assert toy_playouts(key, 50, n) == expected


def test_parse_jobs():
    assert parse_jobs("run=1e6,game=10k") == {"run": 1_000_000, "game": 10_000}
    assert parse_jobs(" GAME = 5 ") == {"game": 5}
    assert parse_jobs("none") == {}
    assert parse_jobs("run-random=2k,run=1k") == {"run-random": 2000, "run": 1000}
    for bad in ("", "run", "walk=5", "run=5,run=6", "run=0", "run=-1", "run=1.5"):
        with pytest.raises(ValueError):
            parse_jobs(bad)


def test_check_jobs_names_the_bad_value():
    with pytest.raises(ValueError, match="unknown job 'walk'"):
        check_jobs({"walk": 5}, 1)
    with pytest.raises(ValueError, match="job run must be at least 1"):
        check_jobs({"run": 0}, 1)
    with pytest.raises(ValueError, match="repeats"):
        check_jobs({"run": 5}, 0)


def test_a_failing_command_is_one_line_with_its_last_error():
    argv = [sys.executable, "-c", "import sys; print('first'); sys.exit('last words')"]
    with pytest.raises(RuntimeError, match="^probe failed \\(1\\): last words$"):
        time_command(argv, "probe")


def test_run_jobs_times_each_command_against_the_kernel_on_its_playouts():
    lines: list[str] = []
    doc = run_jobs({"run": 300, "game": 30}, repeats=2, threads=1, echo=lines.append)
    assert doc["threads"] == doc["toy_threads"] == 1 and doc["repeats"] == 2
    assert set(doc["jobs"]) == {"run", "game"}
    for name, size in (("run", 300), ("game", 30)):
        j = doc["jobs"][name]
        assert j["playouts"] == size * JOBS[name].playouts_per_unit
        assert all(len(v) == 2 and min(v) > 0 for v in j["samples"].values())
        assert j["ratio"] == pytest.approx(j["wall_seconds"] / j["toy_wall_seconds"])
        assert j["cpu_ratio"] == pytest.approx(j["cpu_seconds"] / j["toy_cpu_seconds"])
        # a whole command (a fresh process) takes longer than the kernel alone
        assert j["ratio"] > 1
        assert any(line.startswith(f"{name} ") and f"{size:,}" in line for line in lines)
    assert JOBS["run"].playouts_per_unit == 12 and JOBS["game"].playouts_per_unit == 11


def test_the_floor_job_is_run_with_every_seat_random_and_no_aim(tmp_path):
    job = JOBS["run-random"]
    argv = job.argv(7, 3, 1, tmp_path / "out")
    assert argv[argv.index("-m") + 2 : argv.index("--deals")] == ["run", "--strategies", "random"]
    assert argv[argv.index("--deals") + 1] == "7" and job.aim is None
    lines: list[str] = []
    doc = run_jobs({"run-random": 200}, repeats=1, threads=1, echo=lines.append)
    j = doc["jobs"]["run-random"]
    assert j["playouts"] == 200 * 12 and j["aim"] is None and j["ratio"] > 1
    # the table prints a dash where the other jobs print their aim
    row = next(line for line in lines if line.startswith("run-random ") and "200" in line)
    assert row.rstrip().endswith("-")


def test_bench_cli_rejects_bad_jobs_in_one_line(capsys):
    for bad in ("walk=5", "run=0", "run"):
        code = main(["bench", "--jobs", bad, "--deals", "1000"])
        err = capsys.readouterr().err.strip()
        assert code == 2
        assert len(err.splitlines()) == 1 and "--jobs" in err and "Traceback" not in err


def test_bench_ends_with_the_jobs_and_checks_them_first():
    from bonken_sim.bench.bench import run_bench

    with pytest.raises(ValueError, match="unknown job 'walk'"):
        run_bench(jobs={"walk": 5})  # before any measuring
    doc = run_bench(
        deals=1000, repeats=1, threads=(1,), reference_deals=0, strategies=("random",),
        solver={"endings": 0, "deals": 0}, jobs={"run": 200}, job_repeats=1, echo=lambda *a: None,
    )  # fmt: skip
    assert list(doc["jobs"]["jobs"]) == ["run"] and doc["jobs"]["toy_threads"] == 1
    assert doc["jobs"]["jobs"]["run"]["playouts"] == 200 * 12


def test_a_command_imports_this_bonken_sim_wherever_it_starts(tmp_path, monkeypatch):
    import bonken_sim

    fake = tmp_path / "bonken_sim"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise SystemExit('another checkout')\n")
    monkeypatch.chdir(tmp_path)  # python -m would put this folder first
    argv = JOBS["run"].argv(1, 1, 1, tmp_path / "out")
    assert argv[1:4] == ["-P", "-m", "bonken_sim.cli"]
    probe = [sys.executable, "-P", "-c", "import bonken_sim; print(bonken_sim.__file__)"]
    time_command(probe)  # runs, rather than exit with the other checkout's package
    out = subprocess.run(
        probe, capture_output=True, text=True, check=True, env=this_package_first()
    ).stdout
    assert out.strip() == bonken_sim.__file__
