"""What a run directory holds: schema and metadata, readers, reproducibility across threads,
chunk sizes and executors, agreement with single-deal play, hand features, a golden digest."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import bonken_sim
from bonken_sim.rules.names import VARIANT_NAMES
from bonken_sim.rules.rulesets import STANDARD
from bonken_sim.runs.deals import RunConfig, make_config
from bonken_sim.runs.deals import run as run_dir
from bonken_sim.runs.storage import (
    DEAL_COLUMNS,
    FEATURE_COLUMNS,
    RESULT_COLUMNS,
    SCHEMA_VERSION,
    deals_schema,
    read_manifest,
    read_run,
    result_digest,
    results_schema,
    schema_metadata,
    summarize,
    verify_run,
)

STRATS = "basic,random,basic,random"

# result_digest of: deals=500, seed=20261129, strategies basic,random,basic,random, all 12
# variants. Recompute with tests/test_run_data.py::golden_digest() when the engine's results
# change on purpose (and say so in the commit).
GOLDEN_DIGEST = "d0a50a8cab5577ae48872c8424db11b3716b9e8d5727dab126405798eb23dd74"


def golden_digest(tmp: Path) -> str:
    r = run_dir(deals=500, seed=20261129, strategies=STRATS, out=tmp / "golden", chunk_size=128)
    return result_digest(r.out)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "small"
    run_dir(deals=1500, seed=77, strategies=STRATS, out=out, chunk_size=400, threads=2)
    return out


def test_layout_manifest_and_checksums(small_run):
    names = sorted(p.name for p in small_run.iterdir())
    assert names == ["_deals", "_manifest.json"] + [f"part-{k:06d}.parquet" for k in range(4)]
    assert sorted(p.name for p in (small_run / "_deals").iterdir()) == [
        f"part-{k:06d}.parquet" for k in range(4)
    ]
    m = read_manifest(small_run)
    assert m["state"] == "complete" and m["schema_version"] == SCHEMA_VERSION
    assert m["config"] == {
        "deals": 1500,
        "seed": 77,
        "strategies": STRATS.split(","),
        "contracts": list(VARIANT_NAMES),
        "dealer": 0,
        "chunk_size": 400,
        "seed_drawn": False,
        "threads": 2,
        "ruleset": STANDARD.to_dict(),
    }
    for key in ("bonken_sim", "engine", "numba", "numpy", "pyarrow", "python"):
        assert m["versions"][key]
    assert [p["deals"] for p in m["parts"]] == [400, 400, 400, 300]
    assert [p["deal_start"] for p in m["parts"]] == [0, 400, 800, 1200]
    assert m["rows"] == 1500 * 12 == sum(p["rows"] for p in m["parts"])
    assert m["deals_done"] == 1500
    assert verify_run(small_run) == []
    assert all(len(p["sha256"]) == 64 for p in m["parts"])


def test_schema_and_metadata_round_trip(small_run):
    m = read_manifest(small_run)
    res = pq.read_schema(small_run / "part-000001.parquet")
    dl = pq.read_schema(small_run / "_deals" / "part-000001.parquet")
    assert res.remove_metadata().equals(results_schema().remove_metadata())
    assert dl.remove_metadata().equals(deals_schema().remove_metadata())
    assert res.names == list(RESULT_COLUMNS) and dl.names == list(DEAL_COLUMNS)
    assert res.field("score_0").type == pa.int16() and res.field("tricks_3").type == pa.int8()
    assert res.field("contract").type == pa.dictionary(pa.int8(), pa.string())
    assert dl.field("hand_2").type == pa.uint64() and dl.field("hcp_0").type == pa.int8()
    for schema, table in ((res, "results"), (dl, "deals")):
        meta = schema_metadata(schema)
        assert meta["table"] == table and meta["schema_version"] == SCHEMA_VERSION
        assert meta["format"] == "bonken-sim-run"
        cfg = {k: v for k, v in m["config"].items() if k not in ("threads", "seed_drawn")}
        assert meta["config"] == cfg
        assert meta["part"] == 1 and meta["deal_start"] == 400 and meta["deals"] == 400
        assert meta["versions"]["bonken_sim"] == bonken_sim.__version__
    f = pq.ParquetFile(small_run / "part-000000.parquet")
    assert f.metadata.num_row_groups == 12  # one per variant
    assert f.metadata.row_group(0).column(4).compression in ("UNCOMPRESSED", "ZSTD")


def test_readers_pandas_and_pyarrow_dataset(small_run):
    df = pd.read_parquet(small_run)
    assert len(df) == 1500 * 12 and list(df.columns) == list(RESULT_COLUMNS)
    assert isinstance(df["contract"].dtype, pd.CategoricalDtype)
    assert df["score_0"].dtype == np.int16 and df["out_2"].dtype == np.int8
    buk = pd.read_parquet(small_run, filters=[("contract", "==", "bukken")])
    assert len(buk) == 1500 and set(buk["variant"]) == {"bukken"}
    d = ds.dataset(small_run)
    t = d.to_table(filter=(ds.field("contract") == "troeven") & (ds.field("trump") == "H"))
    assert t.num_rows == 1500 and set(t.column("variant").to_pylist()) == {"troeven_H"}
    deals = pd.read_parquet(small_run / "_deals")
    assert len(deals) == 1500 and list(deals.columns) == list(DEAL_COLUMNS)
    assert sorted(deals["deal"]) == list(range(1500))
    joined = read_run(small_run, contracts="hartenjagen", deals=True)
    assert len(joined) == 1500 and "hearts_0" in joined and joined["deal"].is_unique
    # per-deal totals: every row sums to the contract's total
    totals = df[[f"score_{p}" for p in range(4)]].sum(axis=1).groupby(df["variant"], observed=True)
    assert totals.nunique().eq(1).all()
    assert (
        totals.first().to_dict()["troeven_NT"] == 130
        and totals.first().to_dict()["vrouwen"] == -120
    )


def test_trump_is_null_for_the_negative_contracts(small_run):
    df = pd.read_parquet(small_run, columns=["variant", "contract", "trump"]).drop_duplicates()
    rows = {r.variant: (r.contract, None if pd.isna(r.trump) else r.trump) for r in df.itertuples()}
    assert rows["bukken"] == ("bukken", None) and rows["domino"] == ("domino", None)
    assert rows["troeven_NT"] == ("troeven", "NT") and rows["troeven_C"] == ("troeven", "C")


def test_duckdb_reads_the_directory(small_run):
    duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (optional reader)")
    got = duckdb.sql(
        f"select variant, count(*) as n, sum(score_0 + score_1 + score_2 + score_3) as total "
        f"from '{small_run}/*.parquet' where contract = 'troeven' group by variant order by 1"
    ).fetchall()
    assert [g[1] for g in got] == [1500] * 5 and all(g[2] == 130 * 1500 for g in got)
    n = duckdb.sql(
        f"select count(*) from '{small_run}/*.parquet' r join '{small_run}/_deals/*.parquet' d "
        f"using (deal) where r.variant = 'bukken' and d.hcp_0 >= 0"
    ).fetchall()[0][0]
    assert n == 1500


def test_polars_reads_the_directory(small_run):
    pl = pytest.importorskip("polars", reason="polars is not installed (optional reader)")
    got = pl.scan_parquet(f"{small_run}/*.parquet").filter(pl.col("contract") == "domino").collect()
    assert got.height == 1500 and got["score_0"].sum() + got["score_1"].sum() < 0
    assert pl.read_parquet(f"{small_run}/_deals/*.parquet").height == 1500


def test_stored_scores_equal_single_deal_play(small_run):
    df = read_run(small_run).set_index(["deal", "variant"]).sort_index()
    deals = pd.read_parquet(small_run / "_deals").set_index("deal")
    rng = np.random.default_rng(5)
    for deal in [0, 399, 400, 1499, *rng.integers(0, 1500, 4).tolist()]:
        assert [int(h) for h in deals.loc[deal, [f"hand_{p}" for p in range(4)]]] == (
            bonken_sim.deal_hands(77, deal)
        )
        for name in VARIANT_NAMES:
            p = bonken_sim.play(seed=77, deal=deal, variant=name, strategies=STRATS)
            row = df.loc[(deal, name)]
            assert [int(row[f"score_{s}"]) for s in range(4)] == p.scores, (deal, name)
            if name == "domino":
                order = [int(row[f"out_{s}"]) for s in range(4)]
                assert [s for _, s in sorted((order[s], s) for s in range(4))] == p.out_order
            else:
                assert [int(row[f"tricks_{s}"]) for s in range(4)] == p.tricks
                assert all(row[f"out_{s}"] == -1 for s in range(4))


def _features_in_python(hand: int) -> dict[str, int]:
    cards = [c for c in range(52) if hand >> c & 1]
    lens = [sum(1 for c in cards if c // 13 == s) for s in range(4)]
    ranks = [c % 13 for c in cards]
    f = dict(zip(("clubs", "diamonds", "hearts", "spades"), lens, strict=True))
    f["voids"] = lens.count(0)
    f["singletons"] = lens.count(1)
    for name, r in (
        ("aces", 12),
        ("kings", 11),
        ("queens", 10),
        ("jacks", 9),
        ("eights", 6),
        ("twos", 0),
    ):
        f[name] = ranks.count(r)
    f["hcp"] = 4 * f["aces"] + 3 * f["kings"] + 2 * f["queens"] + f["jacks"]
    return f


def test_hand_features(small_run):
    deals = pd.read_parquet(small_run / "_deals")
    assert set(FEATURE_COLUMNS) <= set(deals.columns)
    assert all(deals[c].dtype == np.int8 for c in FEATURE_COLUMNS)
    for row in deals.sample(60, random_state=1).itertuples(index=False):
        r = row._asdict()
        kh = [p for p in range(4) if int(r[f"hand_{p}"]) >> 37 & 1]
        assert r["kh_seat"] == kh[0]
        for p in range(4):
            for name, value in _features_in_python(int(r[f"hand_{p}"])).items():
                assert r[f"{name}_{p}"] == value, (name, p)
    lens = deals[[f"{s}_{p}" for s in ("clubs", "diamonds", "hearts", "spades") for p in range(4)]]
    assert (lens.sum(axis=1) == 52).all()
    assert (deals[[f"hcp_{p}" for p in range(4)]].sum(axis=1) == 40).all()


def test_same_results_for_any_threads_chunk_size_and_executor(tmp_path):
    kw = dict(deals=1300, seed=2024, strategies=STRATS)
    digests = set()
    for i, (threads, chunk) in enumerate([(1, 1300), (2, 97), (2, 500), (1, 10**6)]):
        r = run_dir(**kw, threads=threads, chunk_size=chunk, out=tmp_path / f"r{i}")
        digests.add(result_digest(r.out))
        if i == 1:
            assert r.parts == 14
    with ThreadPoolExecutor(3) as pool:
        cfg = make_config(**kw, chunk_size=300, out=tmp_path / "ex")
        run_dir(cfg, executor=pool)
        digests.add(result_digest(cfg.out))
    assert len(digests) == 1
    # and the bytes of the result columns themselves, sorted, are identical
    a = read_run(tmp_path / "r0").sort_values(["deal", "variant"], ignore_index=True)
    b = read_run(tmp_path / "r1").sort_values(["deal", "variant"], ignore_index=True)
    for col in RESULT_COLUMNS:
        if col in ("variant", "contract", "trump"):
            assert a[col].astype(str).tolist() == b[col].astype(str).tolist()
        else:
            assert a[col].to_numpy().tobytes() == b[col].to_numpy().tobytes()
    # parts of equal chunk size are byte-identical files whatever the thread count
    # (a one-thread run writes its two files one after the other, a two-thread run side by side)
    r5 = run_dir(**kw, threads=1, chunk_size=500, out=tmp_path / "r5")
    for k in range(3):
        for name in (f"part-{k:06d}.parquet", f"_deals/part-{k:06d}.parquet"):
            assert (r5.out / name).read_bytes() == (tmp_path / "r2" / name).read_bytes()


def test_a_one_thread_run_plays_and_writes_on_one_thread(tmp_path, monkeypatch):
    """--threads counts every busy thread: with 1, the pool's one thread plays every task and
    writes every part (no writer thread, no side thread for the deals file), so the run keeps
    one core busy; with 2, every part is written off the playing threads, on a writer thread
    (the deals file beside the results on a short-lived helper), so that a chunk's write
    starts as soon as it is played."""
    import importlib
    import threading

    import bonken_sim.runs.storage as io

    sim = importlib.import_module("bonken_sim.runs.deals")  # the package exports simulate()

    seen: dict[str, set[str]] = {"play": set(), "write": set()}
    play_task, write_parquet = sim.play_task, io.write_parquet

    def spy_play(task):
        seen["play"].add(threading.current_thread().name)
        return play_task(task)

    def spy_write(*args, **kwargs):
        seen["write"].add(threading.current_thread().name)
        return write_parquet(*args, **kwargs)

    monkeypatch.setattr(sim, "play_task", spy_play)
    monkeypatch.setattr(io, "write_parquet", spy_write)
    main = threading.current_thread().name  # plays only the warm-up, before the pool starts
    r = run_dir(deals=900, seed=3, threads=1, chunk_size=300, out=tmp_path / "one")
    assert r.parts == 3
    workers = seen["play"] - {main}
    assert len(workers) == 1
    assert seen["write"] == workers

    seen = {"play": set(), "write": set()}
    run_dir(deals=900, seed=3, threads=2, chunk_size=300, out=tmp_path / "two")
    pool_threads = seen["play"] - {main}
    assert len(pool_threads) == 2
    assert not seen["write"] & pool_threads
    writers = {name for name in seen["write"] if name.startswith("bonken-sim-write")}
    assert len(writers) == 1  # the results files
    assert seen["write"] - writers  # the deals files, beside them


def test_the_runs_last_chunk_is_cut_into_finer_tasks():
    from bonken_sim.runs.deal_tasks import LAST_TASK_DEALS, TASK_DEALS, chunk_tasks

    cfg = make_config(deals=250_000, seed=1, chunk_size=100_000)
    for index, most in ((0, TASK_DEALS), (1, TASK_DEALS), (2, LAST_TASK_DEALS)):
        tasks = chunk_tasks(cfg, index, threads=2)
        assert max(t.n for t in tasks) <= most < 2 * max(t.n for t in tasks)
        covered = [d for t in tasks for d in range(t.start, t.start + t.n)]
        assert covered == list(range(index * 100_000, min((index + 1) * 100_000, 250_000)))
    assert len(chunk_tasks(make_config(deals=3, seed=1), 0, threads=2)) == 2


def test_a_process_pool_gives_the_same_results(tmp_path):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    kw = dict(deals=400, seed=9, strategies="random", chunk_size=150)
    a = run_dir(**kw, out=tmp_path / "threads")
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        b = run_dir(make_config(**kw, out=tmp_path / "procs"), executor=pool)
    assert result_digest(a.out) == result_digest(b.out)


def test_golden_digest(tmp_path):
    digest = golden_digest(tmp_path)
    assert digest == GOLDEN_DIGEST, (
        f"the stored results changed: digest {digest}; if the engine changed on purpose, "
        f"update GOLDEN_DIGEST"
    )


def test_simulate_in_memory_matches_a_run(small_run):
    df = bonken_sim.simulate(deals=1500, seed=77, strategies=STRATS, contracts="all", threads=2)
    assert df.attrs["seed"] == 77 and len(df) == 1500 * 12
    assert list(df.columns) == list(RESULT_COLUMNS) + list(DEAL_COLUMNS[1:])
    assert df["deal"].is_monotonic_increasing
    stored = read_run(small_run, deals=True).sort_values(["deal", "variant"], ignore_index=True)
    mine = df.sort_values(["deal", "variant"], ignore_index=True)
    for col in df.columns:
        assert mine[col].astype(str).tolist() == stored[col].astype(str).tolist(), col
    sub = bonken_sim.simulate(deals=10, seed=1, contracts="troeven_H,bukken", features=False)
    assert list(sub["variant"].astype(str)[:2]) == ["bukken", "troeven_H"] and "hcp_0" not in sub
    assert bonken_sim.simulate(deals=5, contracts="domino").attrs["seed"] >= 0


def test_summary_statistics_match_pandas(small_run):
    s = summarize(small_run)
    df = pd.read_parquet(small_run)
    g = df.groupby("variant", observed=True)
    for row in s["variants"]:
        sub = g.get_group(row["variant"])
        for p in range(4):
            x = sub[f"score_{p}"].astype(float)
            seat = row["seats"][p]
            assert seat["mean"] == pytest.approx(x.mean())
            half = 1.959963984540054 * x.std(ddof=1) / np.sqrt(len(x))
            assert seat["ci95"][1] - seat["mean"] == pytest.approx(half)
    assert json.dumps(s)  # serialisable


def test_a_run_config_object_and_options_are_exclusive(tmp_path):
    with pytest.raises(TypeError):
        run_dir(RunConfig(deals=1, seed=1), deals=2)


def test_loading_cached_kernels_pauses_the_garbage_collector_and_restores_it(monkeypatch):
    """Paused only for a load from the cache: a compile makes much garbage."""
    import gc

    import bonken_sim.engine.warmup as warmup
    import bonken_sim.runs.deal_tasks as tasks

    seen = []
    play_task = tasks.play_task
    monkeypatch.setattr(tasks, "play_task", lambda t: seen.append(gc.isenabled()) or play_task(t))
    for cached in (True, False):
        monkeypatch.setattr(warmup, "is_warm", lambda cached=cached: cached)
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            try:
                assert tasks.warm_kernels() > 0
                assert gc.isenabled() is enabled
            finally:
                gc.enable()
    assert seen == [False, False, True, False]


def test_the_run_profile_accounts_for_every_task_and_write(tmp_path):
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "profile_run.py"
    done = subprocess.run(
        [sys.executable, str(script), "--deals", "5000", "--threads", "2"],
        capture_output=True, text=True, check=True, cwd=tmp_path,
    )  # fmt: skip
    doc = json.loads(done.stdout)
    assert doc["deals"] == 5000 and doc["threads"] == 2
    assert doc["tasks"] == len(chunk_tasks_of(5000, 2))
    assert doc["play_cpu"] > 0 and doc["write_cpu"] > 0
    assert doc["tail_after_last_task"] >= 0 and doc["run_to_first_task"] >= doc["kernel_load"]
    assert doc["run_wall"] >= doc["run_to_first_task"] + doc["tail_after_last_task"]
    bad = subprocess.run(
        [sys.executable, str(script), "--deals", "0"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "--deals must be positive" in bad.stderr


def chunk_tasks_of(deals: int, threads: int):
    from bonken_sim.runs.deal_tasks import chunk_tasks

    cfg = make_config(deals=deals, seed=5)
    return [t for k in range(cfg.n_chunks) for t in chunk_tasks(cfg, k, threads)]
