"""The standard ruleset's kernel table, as the models and the ladder read it.

The models were fitted, and the ladder is measured, under RULES.md only: they need the
score total of one deal of each variant (``F_TOTAL``: e.g. -65 in bukken, +130 in troeven)
in variant-id order.
"""

from __future__ import annotations

import numpy as np

from bonken_sim._core.ruleset import F_TOTAL, standard_table


def standard_deal_totals() -> np.ndarray:
    """(12,) int64: the sum of the four seats' raw scores of one deal, per variant id."""
    return standard_table()[:, F_TOTAL]
