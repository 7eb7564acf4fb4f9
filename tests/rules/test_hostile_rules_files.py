"""A rules file (``--rules FILE.toml``) of any bytes, or any TOML document of the real keys
with values of any type, is a ruleset or a RulesError naming the file: ``bonken-sim rules
--rules FILE`` prints it or says ``bonken-sim: error: ...`` in one line, exit status 2."""

from __future__ import annotations

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from bonken_sim.cli import main
from bonken_sim.rules.options import ALL_POINTS, RulesError
from bonken_sim.rules.presets import PRESET_NAMES
from bonken_sim.rules.rules_file import load_rules_file
from bonken_sim.rules.ruleset import Ruleset
from tests.fuzz_inputs import EXAMPLES, hostile_bytes, toml_documents, toml_text

_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
#: the keys of docs/HOUSE_RULES.md's table, ``preset``, ``name`` and the ``[rules]`` table
KEYS = ["preset", "name", "heart_lead", "trump_play", "domino_open", "domino_aces",
        "domino_ace_or_two", "order", "doubling", "chooser_doubles", "negatives", "points",
        "rules", "heart-lead", "Points"]  # fmt: skip
#: their values, and the point keys (a table of them is ``points``)
WORDS = [*PRESET_NAMES, "banned", "broken", "free", "optional", "must-trump", "must-overtrump",
         "high", "first-fixes", "fixed", 7, 8, -25, 1001, "bierkaart", "domino", "bukken",
         *ALL_POINTS, *{k.split(".")[0] for k in ALL_POINTS}]  # fmt: skip


def _load(path) -> None:
    try:
        assert isinstance(load_rules_file(path), Ruleset)
    except RulesError as exc:
        assert "\n" not in str(exc) and f"rules file {path}" in str(exc), exc


@_SETTINGS
@given(hostile_bytes())
def test_any_bytes_are_a_ruleset_or_refused(tmp_path, data):
    path = tmp_path / "house.toml"
    path.write_bytes(data)
    _load(path)


@_SETTINGS
@given(
    toml_documents(KEYS, WORDS)
    | toml_documents(KEYS, WORDS).map(lambda d: {"rules": d})
    | st.dictionaries(st.sampled_from(sorted(ALL_POINTS)), st.sampled_from(WORDS)).map(
        lambda p: {"points": p}
    )
)
def test_any_document_of_the_real_keys_is_a_ruleset_or_refused(tmp_path, doc):
    path = tmp_path / "house.toml"
    path.write_text(toml_text(doc), "utf-8", errors="surrogatepass")
    note(path.read_text("utf-8", errors="replace"))
    _load(path)


@settings(_SETTINGS, max_examples=EXAMPLES // 10)
@given(toml_documents(KEYS, WORDS))
def test_the_command_prints_the_ruleset_or_one_line(tmp_path, capsys, doc):
    path = tmp_path / "house.toml"
    path.write_text(toml_text(doc), "utf-8", errors="surrogatepass")
    capsys.readouterr()
    code = main(["rules", "--rules", str(path), "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 2), err
    if code == 2:
        assert err.startswith("bonken-sim: error: ") and err.count("\n") == 1, err
    else:
        assert out.startswith("{") and err == ""
