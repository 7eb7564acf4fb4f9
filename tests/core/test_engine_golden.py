"""Golden traces played by an independent implementation: our replay must accept every
legal record with the same scores and reject every illegal one at the same step."""

from __future__ import annotations

import re

import pytest

import bonken_sim
from tests.conftest import golden_records


def test_every_legal_golden_record_replays_to_its_scores():
    records = golden_records("traces_random.jsonl")
    assert len(records) == 600
    for rec in records:
        assert bonken_sim.replay(rec) == rec["scores"], (rec["deal"], rec["contract"])


def _seat_and_legal(text: str) -> tuple[str, list[str]]:
    seat = re.search(r"seat (\d)", text)
    legal = re.search(r"(?:legal|holding) \[([^\]]*)\]", text)
    assert seat and legal, text
    cards = [c.strip(" '") for c in legal.group(1).split(",") if c.strip()]
    return seat.group(1), sorted(cards)


def test_every_illegal_golden_record_is_rejected_at_the_same_step():
    records = golden_records("traces_illegal.jsonl")
    assert len(records) == 120
    for rec in records:
        with pytest.raises(bonken_sim.IllegalPlay) as err:
            bonken_sim.replay(rec)
        ours, theirs = str(err.value), rec["why_illegal"]
        trick = re.match(r"trick (\d+)", theirs)
        if trick:
            assert ours.startswith(f"trick {trick.group(1)}:"), (ours, theirs)
        assert _seat_and_legal(ours) == _seat_and_legal(theirs), (ours, theirs)


def test_engine_traces_replay_and_match_golden_format():
    legal = golden_records("traces_random.jsonl")
    mine = bonken_sim.play(seed=3, deal=5, variant="domino", strategies="random").record()
    # The golden format, plus the ruleset the record was played under (house rules).
    assert list(mine) == [k for k in legal[0] if k in mine] + ["ruleset"]
    assert set(mine) == set(legal[0]) | {"ruleset"}
    assert bonken_sim.replay(mine) == mine["scores"]


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda r: r["plays"].pop(), "stop before the deal is decided"),
        (lambda r: r["plays"].append(r["plays"][0]), "continue after the deal is over"),
        (lambda r: r["hands"][0].__setitem__(0, r["hands"][1][0]), "do not partition"),
        (lambda r: r.__setitem__("dealer", 7), "dealer"),
        (lambda r: r["plays"].__setitem__(0, "XX"), "malformed"),
        (lambda r: r.__setitem__("contract", "poker"), "unknown contract"),
    ],
)
def test_replay_rejects_broken_records(mutate, message):
    rec = bonken_sim.play(seed=1, deal=2, variant="troeven_S", strategies="random").record()
    mutate(rec)
    with pytest.raises(bonken_sim.IllegalPlay, match=message):
        bonken_sim.replay(rec)


def test_replay_accepts_an_early_stop_only_when_scores_are_settled():
    # hartenheer: once K♥ has fallen no remaining card changes a score, so a trace may end
    # at the next trick boundary; in troeven every trick counts, so it may not.
    for deal in range(40):
        p = bonken_sim.play(seed=9, deal=deal, variant="hartenheer", strategies="random")
        rec = p.record()
        kh = rec["plays"].index("KH")
        cut = (kh // 4 + 1) * 4
        if cut < 52:
            rec["plays"] = rec["plays"][:cut]
            assert bonken_sim.replay(rec) == p.scores
            rec["plays"] = rec["plays"][: cut - 4] if cut >= 8 else rec["plays"][:0]
            with pytest.raises(bonken_sim.IllegalPlay):
                bonken_sim.replay(rec)
            break
    else:
        pytest.fail("no deal with an early K♥")
    rec = bonken_sim.play(seed=9, deal=0, variant="troeven_NT", strategies="random").record()
    rec["plays"] = rec["plays"][:48]
    with pytest.raises(bonken_sim.IllegalPlay, match="stop before"):
        bonken_sim.replay(rec)
