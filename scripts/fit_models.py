"""Refit the contract-choice and doubling models by self-play and ship them in the package.

Usage: python scripts/fit_models.py [--deals 400000] [--seed 2026] [--strategies basic]
[--out bonken_sim/models/data/models.json]   (``make fit`` runs it with the defaults)

The output records this command, the seed and the deal count, so anyone can reproduce it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bonken_sim.analyses.fit_models import fit_models
from bonken_sim.runs.options import parse_count

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "bonken_sim" / "models" / "data" / "models.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", default="400000")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--strategies", default="basic")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    deals = parse_count(args.deals, "--deals")
    models = fit_models(deals, args.seed, args.strategies, args.threads)
    models["provenance"]["command"] = (
        f"python scripts/fit_models.py --deals {deals} --seed {args.seed} "
        f"--strategies {args.strategies}"
    )
    tmp = args.out.with_name("." + args.out.name + ".tmp")
    tmp.write_text(json.dumps(models, indent=1) + "\n")
    tmp.replace(args.out)
    prov = models["provenance"]
    print(
        f"wrote {args.out}: {deals:,} deals, seed {args.seed}, play {prov['play_seconds']} s, "
        f"fit {prov['fit_seconds']} s",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
