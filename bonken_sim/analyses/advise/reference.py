"""Contract averages for ``bonken-sim advise`` from an existing ``bonken-sim run`` directory.

``advise --reference RUN_DIR`` skips the unconditional half of its simulation: the seat's mean
score per contract comes from a finished run instead. That run must have been played the way
the advice is: the same strategies, ruleset and engine, dealer seat 0 (so seat numbers are the
advise roles), and every variant that is advised. Anything else would compare the hand with
the wrong average, so each mismatch is an error that names it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bonken_sim.analyses.advise.config import AdviseConfig
from bonken_sim.analyses.advise.simulation import Sums
from bonken_sim.engine.strategies import strategy_names
from bonken_sim.engine.version import engine_version
from bonken_sim.errors import UserFixableError
from bonken_sim.rules.rulesets import STANDARD, RulesError, Ruleset


class ReferenceError(UserFixableError, ValueError):
    """The reference run cannot serve as the contract averages of this advice."""


def _check(manifest: dict, cfg: AdviseConfig, root: Path, engine: str) -> None:
    where = f"--reference {root}"
    if manifest.get("state") != "complete":
        raise ReferenceError(
            f"{where}: the run is not complete (state {manifest.get('state')!r}); "
            "finish it with bonken-sim run --resume"
        )
    config = manifest.get("config", {})
    have = ",".join(config.get("strategies", []))
    want = strategy_names(cfg.strategies)
    if have != want:
        raise ReferenceError(f"{where}: the run was played with strategies {have}, not {want}")
    if int(config.get("dealer", -1)) != 0:
        raise ReferenceError(
            f"{where}: the run's dealer is seat {config.get('dealer')}; advise needs a run with "
            "dealer seat 0 (the default of bonken-sim run)"
        )
    try:
        rules = Ruleset.from_dict(config.get("ruleset", STANDARD.to_dict()), "run ruleset")
    except RulesError as exc:
        raise ReferenceError(f"{where}: {exc}") from None
    if rules.options() != cfg.ruleset.options():
        raise ReferenceError(
            f"{where}: the run was played under ruleset {rules.name!r}, the advice under "
            f"{cfg.ruleset.name!r}"
        )
    ran = manifest.get("versions", {}).get("engine")
    if ran != engine:
        raise ReferenceError(
            f"{where}: the run was played by another engine version ({ran}; this is {engine}); "
            "play a new reference run"
        )
    missing = [v.name for v in cfg.variants if v.name not in config.get("contracts", [])]
    if missing:
        raise ReferenceError(f"{where}: the run has no {', '.join(missing)}")


def reference_sums(cfg: AdviseConfig) -> Sums:
    """Per advised variant, the exact Σs and Σs² of the run's raw scores at the advised seat.

    Streamed over the run's record batches, so a run of any size fits in memory, and only
    the advised seat's column is read: advise compares the hand with that seat's average
    and nothing else (the other seats' sums and the doubling sums stay zero).
    """
    from bonken_sim.runs.storage import NotARun, read_manifest, score_sums

    root = Path(cfg.reference_run or "")
    try:
        manifest = read_manifest(root)
    except NotARun as exc:
        raise ReferenceError(f"--reference: {exc}") from None
    _check(manifest, cfg, root, engine_version())
    me = cfg.seat
    try:
        count, s1, s2 = score_sums(root, [me])
    except (OSError, ValueError, NotARun) as exc:
        raise ReferenceError(f"--reference {root}: cannot read the run: {exc}") from None
    ids = np.array([v.id for v in cfg.variants], np.int64)
    n = {int(count[i]) for i in ids}
    if len(n) != 1 or 0 in n:
        raise ReferenceError(
            f"--reference {root}: the run does not hold every advised variant on the same deals"
        )
    out = Sums.zeros(len(cfg.variants))
    out.n = n.pop()
    out.s1[:, me] = s1[ids, 0]
    out.s2[:, me] = s2[ids, 0]
    return out
