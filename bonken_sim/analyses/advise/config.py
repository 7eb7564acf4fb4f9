"""An advise request: the hand, the seat and the options of ``bonken-sim advise``, validated.

:func:`make_config` turns the command line's text into an :class:`AdviseConfig`; every bad
value is an :class:`AdviseError` whose message names the option.
"""

from __future__ import annotations

from dataclasses import dataclass

from bonken_sim.engine.strategies import SeatStrategy, is_expert, parse_strategies
from bonken_sim.errors import UserFixableError
from bonken_sim.rules.names import Contract, Variant, parse_hand, parse_variants
from bonken_sim.rules.rulesets import STANDARD, RulesError, Ruleset, resolve
from bonken_sim.runs.options import draw_seed, parse_count, parse_seed

DEALER = 0  # advise always deals with seat 0 as dealer, so seats are the roles below
SEATS = {"dealer": 0, "leader": 1, "chooser": 2, "doubler": 3}
ROLE_OF = {seat: role for role, seat in SEATS.items()}
DEFAULT_DEALS = 100_000
#: the default with an expert seat: it searches at every card decision (about 500 decisions
#: per deal over the 12 variants with four expert seats), so a tenth of a second of search
#: per deal; 200 deals answer in about 10 s on two cores, with their (wide) intervals shown
EXPERT_DEFAULT_DEALS = 200


class AdviseError(UserFixableError, ValueError):
    """Bad advise input; the message names the option and the bad value."""


@dataclass(frozen=True)
class AdviseConfig:
    """A validated advise request (see ``make_config``)."""

    hand: int  # 52-bit mask of exactly 13 cards
    seat: int  # 0 dealer, 1 leader, 2 chooser, 3 doubler
    variants: tuple[Variant, ...]  # the variants that can still be chosen, by id
    trump_used: bool
    deals: int
    seed: int
    seed_drawn: bool
    strategies: tuple[SeatStrategy, ...]
    threads: int
    ruleset: Ruleset = STANDARD
    turns_left: int | None = None  # the chooser's turns left, this one included
    reference_run: str | None = None  # a run directory whose means replace the on-the-fly ones

    @property
    def role(self) -> str:
        return ROLE_OF[self.seat]


def parse_hand13(text: str) -> int:
    """Exactly 13 distinct cards in RULES.md §1 notation, any order and separator."""
    try:
        mask = parse_hand(text)
    except ValueError as exc:
        raise AdviseError(f"--hand: {exc}") from None
    n = bin(mask).count("1")
    if n != 13:
        raise AdviseError(f"--hand must hold exactly 13 cards, got {n}: {text.strip()!r}")
    return mask


def parse_seat(text: str) -> int:
    key = str(text).strip().lower()
    if key not in SEATS:
        raise AdviseError(f"--seat must be one of {', '.join(SEATS)}, got {text!r}")
    return SEATS[key]


def choosable_variants(
    available: str, trump_used: bool, ruleset: Ruleset = STANDARD
) -> tuple[Variant, ...]:
    """The variants the chooser can still pick: ``available`` minus troeven if it is used
    (names under ``ruleset``: ``bierkaart`` where it takes Domino's place)."""
    try:
        listed = parse_variants(available, ruleset)
    except ValueError as exc:
        raise AdviseError(f"--available: {exc}") from None
    out = tuple(v for v in listed if not (trump_used and v.contract is Contract.TROEVEN))
    if not out:
        raise AdviseError(
            f"--available {available!r} with --trump-used leaves nothing to choose "
            "(a chooser who has had his troeven must choose a negative contract)"
        )
    return out


def make_config(
    hand: str,
    seat: str = "chooser",
    available: str = "all",
    trump_used: bool = False,
    deals: str | int | None = None,
    seed: str | int | None = None,
    strategies: str = "basic",
    threads: int | str | None = None,
    ruleset: str | None = None,
    rules_file: str | None = None,
    turns_left: int | str | None = None,
    reference: str | None = None,
) -> AdviseConfig:
    """Validate user input; every error is an ``AdviseError`` naming the option."""
    from bonken_sim.runs.deals import MAX_THREADS, default_threads

    mask = parse_hand13(hand)
    seat_i = parse_seat(seat)
    try:
        rules = resolve(ruleset, rules_file)
    except RulesError as exc:
        raise AdviseError(str(exc)) from None
    variants = choosable_variants(available, trump_used, rules)
    if seed is None:
        seed_i, drawn = draw_seed(), True
    else:
        try:
            seed_i, drawn = parse_seed(seed), False
        except ValueError as exc:
            raise AdviseError(f"--{exc}") from None
    try:
        strats = parse_strategies(strategies)
    except ValueError as exc:
        raise AdviseError(f"--strategies: {exc}") from None
    if deals is None:
        deals = EXPERT_DEFAULT_DEALS if any(is_expert(s) for s in strats) else DEFAULT_DEALS
    try:
        n = parse_count(deals, what="--deals")
    except ValueError as exc:
        raise AdviseError(str(exc)) from None
    if n < 2:
        raise AdviseError(f"--deals must be at least 2 (a confidence interval needs two), got {n}")
    if threads is None:
        n_threads = default_threads()
    else:
        try:
            n_threads = int(str(threads).strip())
        except ValueError:
            n_threads = -1
        if not 1 <= n_threads <= MAX_THREADS:
            raise AdviseError(
                f"--threads must be a whole number from 1 to {MAX_THREADS}, got {threads!r}"
            )
    turns = parse_turns_left(turns_left, seat_i)
    check_last_turn(turns, trump_used, variants, available)
    ref = None if reference is None else str(reference)
    return AdviseConfig(
        mask, seat_i, variants, trump_used, n, seed_i, drawn, strats, n_threads, rules, turns, ref
    )


MAX_TURNS = 3  # 11 deals, 4 players: nobody chooses more than three times in a game


def parse_turns_left(value: int | str | None, seat: int) -> int | None:
    """``--turns-left K``: the chooser's choosing turns left in the game, this one included."""
    if value is None:
        return None
    try:
        k = int(str(value).strip())
    except ValueError:
        k = 0
    if not 1 <= k <= MAX_TURNS:
        raise AdviseError(
            f"--turns-left must be a whole number from 1 to {MAX_TURNS} (this turn included), "
            f"got {value!r}"
        )
    if seat != SEATS["chooser"]:
        raise AdviseError("--turns-left is for the chooser (--seat chooser)")
    return k


def check_last_turn(
    turns_left: int | None, trump_used: bool, variants: tuple[Variant, ...], available: str
) -> None:
    """RULES.md §6 rule 4: a chooser whose last turn to choose has come and who has not had
    his troeven must choose it now. So ``--turns-left 1`` without ``--trump-used`` needs a
    troeven option among the variants still available; without one the position cannot
    arise in a game, and advice for it would recommend a contract the rules forbid."""
    if turns_left != 1 or trump_used:
        return
    if any(v.contract is Contract.TROEVEN for v in variants):
        return
    raise AdviseError(
        f"--turns-left 1 without --trump-used is your last turn with troeven still to call, "
        f"and the rules make you call it now (RULES.md §6), but --available {available!r} "
        "holds no troeven; add the troeven options still open, or give --trump-used"
    )
