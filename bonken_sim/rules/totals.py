"""What one deal of each contract hands out under a ruleset, from its point values.

Readers of results (the report) need a contract's deal total (a seat's fair share is a
quarter of it) and the largest score a deal can give, without reading the kernels' table:
both follow from :attr:`Ruleset.point` and how many times each point value is scored in one
deal.
"""

from __future__ import annotations

from bonken_sim.rules.rulesets import GAME_COUNTS, STANDARD, Ruleset

#: How many times each point value is scored in one deal of its contract: a game plays every
#: negative contract once and troeven four times (RULES.md §6), so troeven's 52 tricks a game
#: are 13 a deal and every other count is the game's.
DEAL_COUNTS = {
    key: count // (4 if key.startswith("troeven.") else 1) for key, count in GAME_COUNTS.items()
}


def contract_of(variant: str) -> str:
    """The contract a variant name belongs to: ``troeven_NT`` → ``troeven``."""
    return "troeven" if variant.startswith("troeven") else variant


def _contract_points(rules: Ruleset, contract: str) -> list[tuple[int, int]]:
    """(times scored per deal, value) of each point value of ``contract`` under ``rules``."""
    return [
        (DEAL_COUNTS[key], value)
        for key, value in rules.point.items()
        if key.split(".")[0] == contract
    ]


def deal_total(variant: str, rules: Ruleset = STANDARD) -> int:
    """The sum of the four seats' raw scores in every deal of ``variant`` (a contract or
    variant name) under ``rules``: RULES.md's bukken −65, troeven +130, …"""
    return sum(n * v for n, v in _contract_points(rules, contract_of(variant)))


def max_abs_deal_score(rules: Ruleset) -> int:
    """The largest |score| one seat can take in one deal of any contract under ``rules``
    (every point value of the contract taken by the one seat)."""
    contracts = {key.split(".")[0] for key in rules.point}
    return max(sum(n * abs(v) for n, v in _contract_points(rules, c)) for c in contracts)


def point_values(rules: Ruleset) -> list[int]:
    """Every point value ``rules`` scores (every score is a sum of these)."""
    return list(rules.point.values())
