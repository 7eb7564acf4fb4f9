"""A run config file (``bonken-sim run --config FILE.toml``) of any bytes, or any TOML
document of the real option names with values of any type, gives the options it sets or a
RunConfigFileError; the command refuses a file it cannot take in one line, exit status 2,
and writes nothing."""

from __future__ import annotations

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from bonken_sim.cli import main
from bonken_sim.files import CannotRead
from bonken_sim.runs.config_file import RUN_CONFIG_KEYS, RunConfigFileError, read_run_config
from tests.fuzz_inputs import EXAMPLES, hostile_bytes, toml_documents, toml_text

_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
KEYS = [*RUN_CONFIG_KEYS, "chunk-size", "write-parts", "run"]
WORDS = ["basic", "advanced", "bukken,troeven_H", "1e6", "0x10", "-1", "standard", "threads",
         "processes", "dask", 0, 1, 10**30, 1.5, ["basic", "random"]]  # fmt: skip


def _read(path) -> dict | None:
    try:
        options = read_run_config(path)
    except (RunConfigFileError, CannotRead) as exc:
        assert "\n" not in str(exc), exc
        return None
    assert set(options) <= set(RUN_CONFIG_KEYS)
    return options


def _documents() -> st.SearchStrategy[bytes]:
    docs = toml_documents(KEYS, WORDS) | toml_documents(KEYS, WORDS).map(lambda d: {"run": d})
    return docs.map(lambda d: toml_text(d).encode("utf-8", "surrogatepass"))


@_SETTINGS
@given(hostile_bytes() | _documents())
def test_any_file_is_options_or_refused(tmp_path, data):
    path = tmp_path / "run.toml"
    path.write_bytes(data)
    note(repr(data[:300]))
    _read(path)


@settings(_SETTINGS, max_examples=EXAMPLES // 10)
@given(hostile_bytes() | _documents())
def test_the_command_refuses_a_file_it_cannot_take_in_one_line(tmp_path, capsys, data):
    path = tmp_path / "run.toml"
    path.write_bytes(data)
    if _read(path) is not None:
        return  # options a run takes: the command would play that run
    capsys.readouterr()
    assert main(["run", "--config", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bonken-sim: error: --config {path}: ") and err.count("\n") == 1, err
    assert [p.name for p in tmp_path.iterdir()] == ["run.toml"]
