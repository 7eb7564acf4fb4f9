"""A ruleset in words a player understands (``bonken-sim rules NAME``).

Every rule that differs from RULES.md is marked ``(changed)``; the caller passes the
standard ruleset to compare with (``Ruleset.describe`` does), so this module needs nothing
but the ruleset's fields.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from bonken_sim.rules.options import point_keys

if TYPE_CHECKING:  # pragma: no cover
    from bonken_sim.rules.ruleset import Ruleset

POINT_WORDS = {
    "bukken.trick": "bukken: per trick taken",
    "hartenjagen.heart": "hartenjagen: per heart taken",
    "herenboeren.king": "herenboeren: per king taken",
    "herenboeren.jack": "herenboeren: per jack taken",
    "vrouwen.queen": "vrouwen: per queen taken",
    "hartenheer.king_of_hearts": "hartenheer: for taking the king of hearts",
    "laatste_slag.last_trick": "laatste slag: for winning the last trick",
    "domino.last_card": "domino: for laying the last card",
    "bierkaart.seven_of_diamonds": "bierkaart: for taking the 7 of diamonds",
    "troeven.trick": "troeven: per trick taken",
}
HEART_WORDS = {
    "banned": "a heart may not be led while the leader holds another suit",
    "broken": "a heart may not be led while the leader holds another suit until a heart "
    'has been played to an earlier trick ("broken")',
    "free": "hearts may be led at any time",
}
TRUMP_WORDS = {
    "optional": "a player who cannot follow suit may trump or discard, as he likes",
    "must-trump": "a player who cannot follow suit must play a trump if he holds one "
    "(any trump: under-trumping is allowed)",
    "must-overtrump": "a player who cannot follow suit must trump if he can, and with a "
    "trump higher than the trick's highest trump if he holds one; following a trump lead, "
    "he must also play higher than the highest trump on the trick if he can",
}
ACE_WORDS = {
    "high": "an ace goes above the king only",
    "first-fixes": "the first ace laid fixes where aces go, for all suits: until then an ace "
    "may be laid once the king of its suit is on the table (above it) or once the 2 of its "
    "suit is (below it); when both are there it goes above the king. Once the first ace has "
    "gone above a king, aces go above the king only; once it has gone below a 2, aces go "
    "below the 2 only and a row then runs from the ace up to the king",
}
_MARK = {True: "", False: "  (changed)"}  # keyed by "the same as the standard ruleset"


def describe_lines(r: Ruleset, standard: Ruleset, width: int = 100) -> list[str]:
    """``r`` in words, lines at most ``width`` long (a long rule wraps, indented under it)."""
    lines = [
        f"ruleset {r.name}",
        "",
        *_card_play(r, standard),
        "",
        *_scores(r, standard),
        "",
        *_game(r, standard),
    ]
    return [wrapped for line in lines for wrapped in _wrap(line, width)]


def _wrap(line: str, width: int) -> list[str]:
    indent = " " * (len(line) - len(line.lstrip()))
    return textwrap.wrap(line, width, subsequent_indent=indent + "  ", break_on_hyphens=False) or [
        ""
    ]


def _card_play(r: Ruleset, std: Ruleset) -> list[str]:
    lines = [
        "Card play",
        f"  heart leads ({r.heart_lead}), in hartenjagen and hartenheer: "
        f"{HEART_WORDS[r.heart_lead]}{_MARK[r.heart_lead == std.heart_lead]}",
        f"  trump play ({r.trump_play}), in troeven with a trump suit: "
        f"{TRUMP_WORDS[r.trump_play]}{_MARK[r.trump_play == std.trump_play]}",
    ]
    if r.beer_card:
        lines.append(
            "  bierkaart (the beer card), in place of domino: played like the other "
            "negative trick contracts (follow suit if you can, no trumps, hearts may be "
            "led at any time); whoever takes the trick holding the 7 of diamonds pays "
            "for it  (changed)"
        )
    else:
        lines.append(
            f"  domino: rows open with the {r.domino_open}s and grow one rank at a time "
            f"up to the ace and down to the 2{_MARK[r.domino_open == std.domino_open]}"
        )
        lines.append(
            f"  domino aces ({r.domino_aces}): {ACE_WORDS[r.domino_aces]}"
            f"{_MARK[r.domino_aces == std.domino_aces]}"
        )
    return lines


def _scores(r: Ruleset, std: Ruleset) -> list[str]:
    pts, standard_pts = r.point, std.point
    lines = ["Scores"]
    for key in point_keys(r.negatives):
        v = pts[key]
        same = v == standard_pts.get(key)  # the beer card's is never standard
        lines.append(f"  {POINT_WORDS[key]:44s} {v:+5d}{_MARK[same]}")
    return lines


def _game(r: Ruleset, std: Ruleset) -> list[str]:
    order = (
        "free (the chooser picks any contract still open)"
        if r.order == "free"
        else "fixed (bukken, hartenjagen, herenboeren, vrouwen, hartenheer, "
        f"laatste slag, {r.negatives[6]}, then four troeven)"
    )
    chooser = (
        "may start doubles, like the other players"
        if r.chooser_doubles
        else "only doubles back (players who doubled him)"
    )
    lines = [
        "Game",
        f"  contract order: {order}{_MARK[r.order == std.order]}",
        f"  doubling: {'on' if r.doubling else 'off'}{_MARK[r.doubling == std.doubling]}",
        f"  the chooser {chooser}{_MARK[r.chooser_doubles == std.chooser_doubles]}",
    ]
    if not r.beer_card:
        domino = (
            "only a chooser holding an ace or a 2 may choose it, unless nothing else is "
            "open to him (then he must); only a player holding an ace or a 2 may double "
            "in it"
            if r.domino_ace_or_two
            else "free, like any other contract"
        )
        lines.append(
            f"  choosing domino: {domino}{_MARK[r.domino_ace_or_two == std.domino_ace_or_two]}"
        )
    total = r.game_total()
    if total == 0:
        lines.append("  a whole game sums to 0 (7 negatives and 4 troeven deals)")
    else:
        lines.append(
            f"  NOTE: a whole game does not sum to zero: it sums to {total:+d} "
            "(allowed, but scores are no longer a pure zero-sum comparison)"
        )
    return lines
