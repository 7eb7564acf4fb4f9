"""The benchmark's yardstick kernel plays exactly the engine's random troeven_NT game."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from bonken_sim._core import kernels as K
from bonken_sim._core.rng import seed_key
from bonken_sim._core.ruleset import standard_table
from bonken_sim._core.yardstick import NT_VARIANT, select_bit
from bonken_sim.engine.yardstick import baseline_playouts, baseline_rate, tuned_playouts


def test_baseline_is_the_engines_random_no_trump_game():
    key, start, n = seed_key(77), 1000, 3000
    bufs = (
        np.zeros((n, 4), np.uint64),
        np.zeros((n, 1, 4), np.int16),
        np.zeros((n, 1, 4), np.int8),
        np.zeros((n, 1, 4), np.int8),
    )
    strat = np.zeros(4, np.int64)
    variants = np.array([NT_VARIANT], np.int64)
    K.simulate_batch(key, start, 0, variants, strat, standard_table(), *bufs)
    tricks = bufs[2][:, 0, :].astype(np.int64)
    assert (tricks.sum(axis=1) == 13).all()
    # Deal by deal: the same cards, the same draws, hence the same tricks for seat 0.
    per_deal = [baseline_playouts(key, start + i, 1) for i in range(200)]
    assert per_deal == list(tricks[:200, 0])
    assert baseline_playouts(key, start, n) == tricks[:, 0].sum()


def test_tuned_yardstick_plays_the_same_game():
    key = seed_key(78)
    per_deal = [tuned_playouts(key, 50 + i, 1) for i in range(300)]
    assert per_deal == [baseline_playouts(key, 50 + i, 1) for i in range(300)]
    assert 0 < sum(per_deal) < 13 * 300


def test_select_bit_is_the_kth_set_bit():
    rng = np.random.default_rng(5)
    masks = [0, 1, 1 << 63, 2**64 - 1, 0xFF00FF00FF00FF00]
    masks += [int(x) for x in rng.integers(0, 2**63, 200, dtype=np.int64)]
    for m in masks:
        bits = [i for i in range(64) if m >> i & 1]
        for k, b in enumerate(bits):
            assert select_bit(np.uint64(m), k) == b


def test_baseline_rate_reports_positive_samples():
    rate, samples = baseline_rate(2000, 3)
    assert len(samples) == 3 and all(s > 0 for s in samples)
    assert rate == sorted(samples)[1]


def _bench_core_script():
    """benchmarks/bench_core.py, the script `make bench` runs, as a module."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_core.py"
    spec = importlib.util.spec_from_file_location("bench_core", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_reports_each_tier_against_the_yardstick_and_the_reference():
    """The installed bench has no pure-Python reference (tests/ is not installed);
    benchmarks/bench_core.py passes it in, and the random and basic tiers report their
    speed-up over it."""
    from bonken_sim.bench.bench import run_bench
    from bonken_sim.engine.provenance import versions

    lines: list[str] = []
    doc = run_bench(
        deals=2000, repeats=2, threads=(1,), reference_deals=2, strategies=("random", "basic"),
        echo=lines.append, reference_rate=_bench_core_script().reference_rate,
        solver={"endings": 0, "deals": 0},
    )  # fmt: skip
    assert doc["versions"] == versions()
    for tier in ("random", "basic"):
        tier_doc = doc["strategies"][tier]
        assert tier_doc["reference_playouts_per_s"] > 0
        speedup = tier_doc["all_variants_threads_1"] / tier_doc["reference_playouts_per_s"]
        assert tier_doc["speedup_over_reference"] == speedup
        assert any(ln.startswith(f"{tier}: pure-Python reference") for ln in lines)
    base = doc["baseline"]
    assert base["playouts_per_cpu_s"] == max(base["plain_per_cpu_s"], base["tuned_per_cpu_s"])
    assert all(len(base["samples"][k]) == 2 for k in ("plain", "tuned"))
    for tier in ("random", "basic"):
        ratio = base["ratios"][tier]
        assert ratio == base["tiers_per_cpu_s"][tier] / base["playouts_per_cpu_s"]
        assert any(ln.startswith(tier) and f"= {ratio:.2f}x the yardstick" in ln for ln in lines)
    assert base["targets"] == {"random": 1.5 / 2.1, "basic": 1.2 / 2.1}
    # basic thinks about every card; it cannot be faster than random play
    assert base["ratios"]["basic"] < base["ratios"]["random"]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_the_c_cross_check_builds_and_plays_fair_random_deals(tmp_path):
    """benchmarks/minimal_playout.c (the yardstick's game in C) compiles warning-free and plays
    random deals: seat 0 (last to play to the first trick) wins about a quarter of the tricks
    (3.240 a deal measured over 2 million deals, a little under 13/4)."""
    src = Path(__file__).resolve().parents[2] / "benchmarks" / "minimal_playout.c"
    exe = tmp_path / "minimal_playout"
    build = subprocess.run(
        ["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(exe), str(src)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    out = subprocess.run([str(exe), "40000"], capture_output=True, text=True, check=True).stdout
    m = re.fullmatch(
        r"([0-9.]+) million deal-playouts per CPU-second \(40000 deals, checksum (\d+)\)\n", out
    )
    assert m, out
    tricks = int(m.group(2)) / 40000  # seat 0's mean tricks per deal (sd about 1.4)
    assert abs(tricks - 3.24) < 0.03, tricks


def test_bench_writes_its_result_whole_or_not_at_all(tmp_path, monkeypatch):
    """The result file is written under a temporary name beside it and renamed into place,
    so a bench stopped while writing leaves no truncated JSON behind."""
    import json
    import os

    from bonken_sim.bench.bench import run_bench

    renames: list[tuple[Path, Path]] = []
    real_replace = os.replace

    def replace(src, dst):
        if Path(dst).parent == tmp_path:  # not numba's cache index, written the same way
            renames.append((Path(src), Path(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    doc = run_bench(
        deals=2000, repeats=1, threads=(1,), reference_deals=0, strategies=("random",),
        out_dir=tmp_path, echo=lambda *a: None, solver={"endings": 0, "deals": 0},
    )  # fmt: skip
    path = Path(doc["path"])
    ((src, dst),) = renames
    assert dst == path and src.parent == path.parent and src.name.startswith(f".{path.name}.")
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file is left
    assert json.loads(path.read_text())["baseline"] == doc["baseline"]
