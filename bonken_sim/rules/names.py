"""Public names of the rules: contracts, trumps, contract variants, card notation.

The exact rules are in RULES.md (see the README); the engine's own choices in docs/ENGINE.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum

from bonken_sim._core import ids
from bonken_sim.errors import BadValue, UserFixableError

SUITS = "CDHS"
RANKS = "23456789TJQKA"
SUIT_SYMBOLS = "♣♦♥♠"


class Contract(IntEnum):
    """The eight contracts (troeven is played with one of five trump options)."""

    BUKKEN = ids.BUKKEN
    HARTENJAGEN = ids.HARTENJAGEN
    HERENBOEREN = ids.HERENBOEREN
    VROUWEN = ids.VROUWEN
    HARTENHEER = ids.HARTENHEER
    LAATSTE_SLAG = ids.LAATSTE_SLAG
    DOMINO = ids.DOMINO
    TROEVEN = ids.TROEVEN

    @property
    def label(self) -> str:
        return self.name.lower()


NEGATIVE_CONTRACTS = tuple(Contract)[: ids.N_NEGATIVE]
N_VARIANTS = ids.N_VARIANTS  # the seven negative contracts, then troeven's five trump options
# Every ace and every 2 (a card mask): under the house rule domino_ace_or_two a player needs
# one of them to choose Domino or to double in it.
ACES_AND_TWOS = ids.ACES_AND_TWOS
TRUMPS = ("C", "D", "H", "S", "NT")


class Strategy(IntEnum):
    """Card-play strategies, chosen per seat (docs/ENGINE.md)."""

    RANDOM = ids.STRAT_RANDOM
    BASIC = ids.STRAT_BASIC
    ADVANCED = ids.STRAT_ADVANCED
    EXPERT = ids.STRAT_EXPERT  # with the default search settings (engine.strategies.Expert: others)


# The expert tier's search settings: deals sampled per decision (K) and the tricks left at
# which it solves exactly (E); their defaults and bounds.
EXPERT_SAMPLES = ids.DEFAULT_EXPERT_SAMPLES
EXPERT_EXACT_TRICKS = ids.DEFAULT_EXPERT_EXACT_TRICKS
EXPERT_SAMPLES_MAX = ids.EXPERT_SAMPLES_MAX
EXPERT_EXACT_MAX = ids.EXPERT_EXACT_MAX


@dataclass(frozen=True)
class Variant:
    """A contract as played: the contract plus, for troeven, the trump option."""

    contract: Contract
    trump: str | None = None

    @property
    def id(self) -> int:
        if self.contract is Contract.TROEVEN:
            return ids.TROEVEN_C + TRUMPS.index(self.trump or "")
        return int(self.contract)

    @property
    def name(self) -> str:
        """``bukken`` … ``troeven_NT``: the name used on the command line and in data."""
        if self.contract is Contract.TROEVEN:
            return f"troeven_{self.trump}"
        return self.contract.label

    def __str__(self) -> str:
        return self.name


VARIANTS: tuple[Variant, ...] = tuple(Variant(c) for c in NEGATIVE_CONTRACTS) + tuple(
    Variant(Contract.TROEVEN, t) for t in TRUMPS
)
VARIANT_NAMES = tuple(v.name for v in VARIANTS)
TROEVEN_VARIANTS = tuple(v for v in VARIANTS if v.contract is Contract.TROEVEN)
TROEVEN_NAMES = tuple(v.name for v in TROEVEN_VARIANTS)

# The beer card ("bierkaart", whoever takes the 7♦ scores -50) is a house-rules contract that
# takes Domino's slot (variant id 6, Contract.DOMINO) when a ruleset lists it in
# ``negatives``; under such a ruleset variant 6 is named "bierkaart" everywhere.
BEER_CARD_NAME = ids.BEER_CARD_NAME


def plays_beer_card(ruleset: object = None) -> bool:
    """Does ``ruleset`` (a house_rules.Ruleset, None for RULES.md, or a bool: whether the
    beer card is played, for readers that only know that) play the beer card?"""
    if isinstance(ruleset, bool):
        return ruleset
    return bool(getattr(ruleset, "beer_card", False))


def variant_names(ruleset: object = None) -> tuple[str, ...]:
    """The twelve variant names by id under ``ruleset`` (None: RULES.md, VARIANT_NAMES).

    The one place where names depend on the ruleset: the beer card's ruleset names
    variant 6 "bierkaart"; every other ruleset uses VARIANT_NAMES.
    """
    if not plays_beer_card(ruleset):
        return VARIANT_NAMES
    slot = ids.DOMINO
    return (*VARIANT_NAMES[:slot], BEER_CARD_NAME, *VARIANT_NAMES[slot + 1 :])


def contract_names(ruleset: object = None) -> tuple[str, ...]:
    """The eight contract names by Contract id under ``ruleset`` (see variant_names)."""
    names = tuple(c.label for c in Contract)
    if not plays_beer_card(ruleset):
        return names
    slot = ids.DOMINO
    return (*names[:slot], BEER_CARD_NAME, *names[slot + 1 :])


def variant_name(variant: Variant | int, ruleset: object = None) -> str:
    """A variant's name under ``ruleset`` (see variant_names)."""
    vid = variant if isinstance(variant, int) else variant.id
    return variant_names(ruleset)[vid]


def contract_name(variant: Variant, ruleset: object = None) -> str:
    """A variant's contract name under ``ruleset`` (``troeven`` for every trump)."""
    return contract_names(ruleset)[int(variant.contract)]


class UnknownContract(UserFixableError, ValueError):
    """A name that is no contract; the message lists the names that are."""

    def __init__(self, name: str, choices: tuple[str, ...]) -> None:
        super().__init__(f"unknown contract {name!r} (expected one of: {', '.join(choices)})")


def contract_from_name(name: str) -> Contract:
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    for c in Contract:
        if c.label == key:
            return c
    raise UnknownContract(name, tuple(c.label for c in Contract))


def trump_from_name(name: str) -> str:
    if not isinstance(name, str):  # a trump of a JSON document may be any value
        raise BadValue(f"unknown trump {name!r} (expected one of: {', '.join(TRUMPS)})")
    key = name.strip().upper()
    if key in ("N", "NOTRUMP", "SA", "SANS"):
        key = "NT"
    if key not in TRUMPS:
        raise BadValue(f"unknown trump {name!r} (expected one of: {', '.join(TRUMPS)})")
    return key


def make_variant(contract: str, trump: str | None = None, ruleset: object = None) -> Variant:
    """A variant from a contract name and an optional trump; checks they go together.
    ``ruleset``: the names it plays (``bierkaart`` is variant 6 under the beer card's)."""
    key = contract.strip().lower().replace("-", "_").replace(" ", "_")
    if key == BEER_CARD_NAME:
        if not plays_beer_card(ruleset):
            raise BadValue(
                "bierkaart is not played under this ruleset (it takes domino's place under "
                "--ruleset bierkaart, or a rules file that lists it in negatives)"
            )
        if trump is not None:
            raise BadValue("bierkaart is not a trump contract; leave out --trump")
        return Variant(Contract.DOMINO)
    c = contract_from_name(contract)
    if c is Contract.DOMINO and plays_beer_card(ruleset):
        raise BadValue("domino is not played under this ruleset: bierkaart takes its place")
    if c is Contract.TROEVEN:
        if trump is None:
            raise BadValue("troeven needs a trump: --trump C, D, H, S or NT")
        return Variant(c, trump_from_name(trump))
    if trump is not None:
        raise BadValue(f"{c.label} is not a trump contract; leave out --trump")
    return Variant(c)


#: a troeven variant named with its trump: ``troeven_H``, ``troeven:H``, ``troeven-nt``
_TROEVEN_VARIANT = re.compile(r"\s*troeven\s*[_:\- ]?\s*(\w+)\s*", flags=re.IGNORECASE)


def parse_variant(text: str, ruleset: object = None) -> Variant:
    """``bukken``, ``troeven_H``, ``troeven:H`` or ``troeven-nt`` → a Variant (``ruleset``:
    see make_variant)."""
    m = _TROEVEN_VARIANT.fullmatch(text)
    if m:
        return make_variant("troeven", m.group(1))
    return make_variant(text, ruleset=ruleset)


def contract_variant(contract: str, trump: str | None = None, ruleset: object = None) -> Variant:
    """``--contract NAME`` with an optional ``--trump SUIT``: a contract and its trump as
    make_variant takes them, or a troeven variant named with its trump (``troeven_S``, the
    names of ``--contracts``), with which a ``--trump`` given as well must agree."""
    m = _TROEVEN_VARIANT.fullmatch(contract)
    if m is None:
        try:
            return make_variant(contract, trump, ruleset=ruleset)
        except UnknownContract:
            # --contract takes troeven's variants by name too, so the choices list them
            raise UnknownContract(contract, (*contract_names(ruleset), *TROEVEN_NAMES)) from None
    named = trump_from_name(m.group(1))
    if trump is not None and trump_from_name(trump) != named:
        raise BadValue(
            f"--contract {contract.strip()} has trump {named}, but --trump is {trump.strip()}; "
            "give the trump once"
        )
    return make_variant("troeven", named, ruleset=ruleset)


def _listed_variant(item: str, ruleset: object) -> Variant:
    """One name of a list that parse_variants does not expand (not ``all`` or ``troeven``)."""
    try:
        return parse_variant(item, ruleset)
    except UnknownContract:
        # the list takes all and the troeven variants by name too, so the choices list them
        choices = ("all", *contract_names(ruleset), *TROEVEN_NAMES)
        raise UnknownContract(item, choices) from None


def parse_variants(text: str, ruleset: object = None) -> list[Variant]:
    """A comma list of variants; ``all`` means all twelve and ``troeven`` all five trumps."""
    items = [s.strip() for s in text.split(",")]
    if items == [""]:
        raise BadValue("no contract given")
    if "" in items:
        raise BadValue(f"an empty name in the list {text!r} (a comma too many?)")
    out: list[Variant] = []
    named: set[Variant] = set()  # named one by one: a repeat is a slip, not a set union
    for item in items:
        if item.lower() == "all":
            new = list(VARIANTS)
        elif item.lower() == "troeven":
            new = list(TROEVEN_VARIANTS)
        else:
            v = _listed_variant(item, ruleset)
            if v in named:
                raise BadValue(f"{item!r} is listed twice in {text!r}")
            named.add(v)
            new = [v]
        out.extend(v for v in new if v not in out)
    return sorted(out, key=lambda v: v.id)


def card_index(suit: int, rank: int) -> int:
    return 13 * suit + rank


def card_str(c: int) -> str:
    """``QS``, ``TH``, ``2C``."""
    if not 0 <= c < 52:
        raise BadValue(f"card index out of range: {c}")
    return RANKS[c % 13] + SUITS[c // 13]


_CARD_RE = re.compile(r"^(10|[2-9TJQKA])([CDHS♣♦♥♠])$")


#: the 52 cards as ``card_str`` writes them: parsed by one look-up (a seat's view holds up
#: to 65 cards, and ``decide`` parses every one of them at every decision)
_CARD_TEXTS = {RANKS[r] + SUITS[s]: 13 * s + r for s in range(4) for r in range(13)}


def parse_card(text: str) -> int:
    """Card text to index: rank ``2-9 T J Q K A`` (or ``10``) then suit ``C D H S``."""
    if not isinstance(text, str):  # a card of a JSON document may be any value
        raise BadValue(f"not a card: {text!r} (write rank then suit, e.g. QS, TH, 10H, 2C)")
    if (c := _CARD_TEXTS.get(text)) is not None:
        return c
    # Upper-case ASCII letters only: str.upper() maps some non-ASCII letters onto ASCII ones
    # (the long s becomes S), and such input must not pass for a card.
    folded = "".join(ch.upper() if ch.isascii() else ch for ch in text.strip())
    m = _CARD_RE.match(folded)
    if not m:
        raise BadValue(f"not a card: {text!r} (write rank then suit, e.g. QS, TH, 10H, 2C)")
    rank_txt, suit_txt = m.groups()
    rank = 8 if rank_txt == "10" else RANKS.index(rank_txt)
    suit = SUIT_SYMBOLS.index(suit_txt) if suit_txt in SUIT_SYMBOLS else SUITS.index(suit_txt)
    return card_index(suit, rank)


def parse_hand(text: str) -> int:
    """A list of cards in any order and separator → a bitmask; rejects duplicates."""
    mask = 0
    # Anything that cannot be part of a card separates cards: spaces, commas, slashes, dashes,
    # the emoji selector after a suit symbol.
    for tok in re.split(r"[^0-9A-Za-z♣♦♥♠]+", text.strip()):
        if not tok:
            continue
        c = parse_card(tok)
        if mask >> c & 1:
            raise BadValue(f"card {card_str(c)} given twice")
        mask |= 1 << c
    return mask


def mask_cards(mask: int) -> list[int]:
    """Card indices of a mask, in index order."""
    return [c for c in range(52) if mask >> c & 1]


def hand_str(mask: int) -> str:
    """A hand by suit, highest first: ``S: A K 7  H: Q 2  D: -  C: J 9 8 3``."""
    parts = []
    for s in (3, 2, 1, 0):
        ranks = [RANKS[r] for r in range(12, -1, -1) if mask >> (13 * s + r) & 1]
        parts.append(f"{SUIT_SYMBOLS[s]} {' '.join(ranks) if ranks else '-'}")
    return "  ".join(parts)
