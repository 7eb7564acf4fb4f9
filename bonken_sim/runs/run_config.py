"""One configuration mechanism for every kind of run (deal runs, game runs).

``ConfigKind.make`` validates what a user typed (or Python values) into a kind's config: the
options given are parsed; a new run takes the defaults of the others and draws a seed when
none is given; ``--resume`` takes the options not given from the run's manifest and refuses
a given one that differs from the run's, with one message for every kind. The threads, the
executor and the output directory (``~`` expanded) are handled alike for every kind.

What differs between kinds is data: a ``ConfigKind`` holds the kind's run directory
(``directory.RunKind``: its error type, manifest and resume messages) and its table of
``Option``s, each with its parser, its default, whether it is part of the run's identity
(recorded in the manifest and checked on ``--resume``) and how the manifest stores it.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bonken_sim.rules.rulesets import STANDARD, Ruleset
from bonken_sim.runs.directory import KIND_NAMES, RunDir, RunKind, open_run_dir, versions
from bonken_sim.runs.executors import ExecutorError, ExecutorSpec, make_spec
from bonken_sim.runs.manifest import MANIFEST_CHECKS, check_parts, short
from bonken_sim.runs.options import (
    default_threads,
    draw_seed,
    flag,
    parse_option_count,
    parse_option_seed,
    parse_ruleset,
    parse_threads,
)

#: ``--resume`` with ``--force``, for every kind of run
RESUME_AND_FORCE = "--resume and --force exclude each other: resume a run or overwrite it"

Values = dict[str, Any]


def _same(value: Any) -> Any:
    return value


def load_names(stored: Any) -> tuple:
    """A list of names as a manifest records it (players, strategies, contracts), as a tuple;
    TypeError for anything else (a text would read as its letters)."""
    if not isinstance(stored, list):
        raise TypeError(f"{short(stored)} is not a list of names")
    return tuple(stored)


@dataclass(frozen=True)
class Option:
    """One option of a kind of run. ``name`` is the config's field, the manifest's key and,
    as ``--name``, the flag.

    ``parse`` turns a given value into the option's value (ValueError with the one-line
    message otherwise); with ``by_ruleset`` it also takes the run's ruleset (names that
    depend on it). ``default`` gives the value of a new run from the values before it in the
    table (the ruleset first); None marks the option a new run must give. ``identity``: part
    of what decides the run's bytes, recorded in the manifest and checked on ``--resume``.
    ``fit`` is the value as a run records it, given the run's other values; ``store`` the
    manifest's form of a value (None: not recorded) and ``load`` the value of a stored one
    (None when the manifest has none)."""

    name: str
    parse: Callable[..., Any]
    default: Callable[[Values], Any] | None
    identity: bool = True
    by_ruleset: bool = False
    fit: Callable[[Any, Values], Any] | None = None
    store: Callable[[Any], Any] = _same
    load: Callable[[Any], Any] = _same
    label: str = ""  # what a message calls it ("" = its flag)

    def named(self) -> str:
        return self.label or flag(self.name)


def count_option(name: str, maximum: int | None = None) -> Option:
    """The count of a run (``deals``, ``games``): required, part of its identity."""

    def parse(value: Any) -> int:
        if maximum is None:
            return parse_option_count(value, name)
        return parse_option_count(value, name, maximum)

    return Option(name, parse, default=None, load=int)


def chunk_size_option(default: int, count: str) -> Option:
    """``--chunk-size`` of a run of games or boards (``count``): a run of fewer of them than
    its chunk size records their number as its chunk size."""
    return Option(
        "chunk_size",
        lambda value: parse_option_count(value, "chunk_size"),
        default=lambda values: default,
        fit=lambda chunk, values: min(chunk, values[count]),
        load=int,
    )


def seats_option(name: str, parse: Callable[[Any], tuple]) -> Option:
    """The four seats' players (``strategies``, ``players``): basic by default, recorded as
    the list of their names."""
    return Option(name, parse, default=lambda values: ("basic",) * 4, store=list, load=load_names)


#: ``--seed``: drawn (``options.draw_seed``) when a new run is given none
SEED = Option("seed", parse_option_seed, default=lambda values: draw_seed(), load=int)


def _load_ruleset(record: dict | None) -> Ruleset:
    # a run made before house rules (or a game run under RULES.md) records none; a record
    # from before an option existed lacks its key and reads as the option's default
    return STANDARD if record is None else Ruleset.from_dict(record, "run ruleset")


def ruleset_option(record_standard: bool) -> Option:
    """``--ruleset`` / ``--rules`` (given as the pair of them). ``record_standard``: the
    manifest records the standard ruleset too (deal runs), or only a house ruleset (game
    runs, so that runs made before rulesets still resume)."""

    def store(ruleset: Ruleset) -> dict | None:
        return ruleset.to_dict() if record_standard or not ruleset.is_standard else None

    return Option(
        "ruleset",
        lambda given: parse_ruleset(*given),
        default=lambda values: STANDARD,
        store=store,
        load=_load_ruleset,
        label="the ruleset",
    )


def given_ruleset(ruleset: Any, rules_file: Any = None) -> tuple[Any, Any] | None:
    """The ruleset option as given: None when neither ``ruleset`` nor ``rules_file`` is."""
    return None if ruleset is None and rules_file is None else (ruleset, rules_file)


def out_dir(out: Any) -> Path | None:
    """``--out`` as a path, ``~`` expanded (None or empty: not given)."""
    return None if out is None or str(out) == "" else Path(os.path.expanduser(str(out)))


def show(value: Any) -> str:
    """An option's value in a message: a ruleset by its name, on/off, 12,345, a,b,c."""
    if isinstance(value, Ruleset):
        return repr(value.name)
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int):
        return f"{value:,}" if value >= 10_000 else str(value)
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


#: the executor's options (``executors.make_spec``): they never change a run's results
EXECUTOR_OPTIONS = ("executor", "workers", "scheduler", "write_parts")
#: the keywords of ``ConfigKind.make`` besides the options: how a run is carried out, alike
#: for every kind
RUN_SETTINGS = ("threads", "out", "resume", "force", *EXECUTOR_OPTIONS)


@dataclass(frozen=True)
class ConfigKind:
    """A kind of run's configuration: its run directory, its options (in the order its
    manifest records them) and the config class they build. Every option's value is a
    keyword of ``build``, with ``threads``, ``out``, ``resume``, ``force``, ``seed_drawn``
    and ``executor_spec``."""

    run: RunKind
    options: tuple[Option, ...]
    build: Callable[..., Any]
    count_example: str  # in the message when the count is missing
    part_count: str = ""  # what a part entry counts ("": the count option's name)
    part_keys: tuple[str, ...] = ()  # what else a part entry holds that its readers read

    def __post_init__(self) -> None:
        MANIFEST_CHECKS[self.run.format] = self.check_manifest

    @property
    def noun(self) -> str:
        """``deal run``, ``game run``."""
        return KIND_NAMES[self.run.format]

    def option(self, name: str) -> Option:
        return next(o for o in self.options if o.name == name)

    @property
    def count(self) -> Option:
        return next(o for o in self.options if o.default is None)

    def make(self, arguments: Values) -> Any:
        """The config of a kind's ``make_*config`` keywords (its ``locals()``: each kind keeps
        its own signature and docstring for its callers): the options by their names (None
        = not given), ``ruleset`` with ``rules_file`` (at most one of them) and the run
        settings (``RUN_SETTINGS``, absent = not given); the kind's error with a one-line
        message for anything wrong. The executor options never change the results, so a
        run may be resumed with any of them; with worker processes ``threads`` is what each
        task uses inside its worker (default 1)."""
        names = {o.name for o in self.options}
        unknown = set(arguments) - names - {"rules_file", *RUN_SETTINGS}
        assert not unknown, f"not an option of a {self.noun}: {sorted(unknown)}"
        typed = {name: arguments.get(name) for name in names}
        typed["ruleset"] = given_ruleset(arguments.get("ruleset"), arguments.get("rules_file"))
        threads = arguments.get("threads")
        resume, force = bool(arguments.get("resume")), bool(arguments.get("force"))
        error = self.run.error
        if resume and force:
            raise error(RESUME_AND_FORCE)
        try:
            spec = make_spec(*(arguments.get(name) for name in EXECUTOR_OPTIONS))
        except ExecutorError as exc:
            raise error(str(exc)) from None
        root = out_dir(arguments.get("out"))
        given = self._given(typed, by_ruleset=False)
        try:
            if threads is not None:
                n_threads = parse_threads(threads)
            else:
                n_threads = default_threads() if spec.local else 1
        except ValueError as exc:
            raise error(str(exc)) from None
        manifest = self._manifest(root) if resume else None
        stored = None if manifest is None else self._loaded(root, manifest)
        if "ruleset" in given:
            ruleset = given["ruleset"]
        else:
            ruleset = STANDARD if stored is None else stored["ruleset"]
        given.update(self._given(typed, by_ruleset=True, ruleset=ruleset))
        common = dict(threads=n_threads, out=root, resume=resume, force=force, executor_spec=spec)
        if manifest is not None:
            assert root is not None and stored is not None
            values = self._resumed(root, given, stored)
            drawn = manifest["config"].get("seed_drawn", manifest.get("seed_drawn", False))
            return self.build(**values, seed_drawn=bool(drawn), **common)
        if self.count.name not in given:
            raise error(f"{self.count.named()} is required (a count such as {self.count_example})")
        values = {"ruleset": ruleset}
        for o in self.options:
            if o.name not in values:
                values[o.name] = given[o.name] if o.name in given else _default(o, values)
        return self.build(**_fitted(self.options, values), seed_drawn="seed" not in given, **common)

    def open_dir(
        self,
        config: Any,
        new_manifest: Callable[[Any], dict],
        *,
        resume: bool = False,
        force: bool = False,
    ) -> RunDir:
        """The run directory of ``config`` (``directory.open_run_dir``): a new run's manifest
        is ``new_manifest(config)``; a run to resume must have been made with the config's
        options (``same_run``). ``resume`` and ``force`` add to the config's own."""
        return open_run_dir(
            self.run,
            config.out,
            config.seed,
            resume=resume or config.resume,
            force=force or config.force,
            new_manifest=functools.partial(new_manifest, config),
            check=functools.partial(self.same_run, config),
        )

    def games_manifest(self, config: Any, tables: dict[str, str]) -> dict:
        """The manifest of a new run of games (a game run, or a match, which writes the same
        tables and more): what ``tables`` the run writes, no parts and no sessions yet."""
        return {
            "format": self.run.format,
            "schema_version": self.run.schema_version,
            "state": "incomplete",
            "config": config.identity(),
            "seed_drawn": config.seed_drawn,
            "versions": dict(versions()),
            "tables": dict(tables),
            "parts": [],
            "sessions": [],
        }

    def _given(self, typed: Values, by_ruleset: bool, ruleset: Ruleset = STANDARD) -> Values:
        """The options given (not None) whose parser takes the ruleset (or not), parsed."""
        given = {}
        try:
            for o in self.options:
                value = typed.get(o.name)
                if value is None or o.by_ruleset != by_ruleset:
                    continue
                given[o.name] = o.parse(value, ruleset) if by_ruleset else o.parse(value)
        except ValueError as exc:
            raise self.run.error(str(exc)) from None
        return given

    def _manifest(self, root: Path | None) -> dict:
        """The manifest of the run to resume in ``root``."""
        return self.run.run_to_resume(root)[1]

    def _loaded(self, root: Path | None, manifest: dict) -> Values:
        """The identity options' values as the manifest records them."""
        config = manifest.get("config")
        try:
            assert isinstance(config, dict)
            return {o.name: o.load(config.get(o.name)) for o in self.options if o.identity}
        except (AssertionError, ValueError, TypeError, KeyError) as exc:
            raise self.run.error(f"{root}: the manifest's options cannot be read: {exc}") from None

    def check_manifest(self, doc: dict) -> None:
        """ValueError ``field: why`` unless ``doc`` (a manifest of this kind, of the right
        shape: manifest.check_shape) records what a run of this kind records: every identity
        option read back and parsed as if given, the run they make recording the very same
        values (a count as a whole number, names as written), each part entry naming its
        number, its count and its files."""
        config = doc.get("config", {})
        values: Values = {}
        for o in sorted(self.options, key=lambda o: o.name != "ruleset"):  # names need it
            values[o.name] = self._read_back(o, config, values)
        run = self.build(**values, threads=1, executor_spec=ExecutorSpec())
        for name, want in run.identity().items():
            if name == "ruleset" or _json(config.get(name)) == _json(want):
                continue
            if name not in config:
                raise ValueError(f"config.{name} is missing")
            raise ValueError(
                f"config.{name}: {short(config.get(name))} where a run records {short(want)}"
            )
        unit = self.part_count or self.count.name
        files = tuple(file for files in self.run.part_files for file in files)
        start = f"{unit.removesuffix('s')}_start"  # deal_start, game_start
        check_parts(doc.get("parts", []), ("index", unit, start, *files, *self.part_keys))

    @staticmethod
    def _read_back(o: Option, config: dict, values: Values) -> Any:
        """The value of option ``o`` a manifest's ``config`` records, parsed as if given (the
        default of one not part of the run's identity; the loaded value of one not recorded,
        which the run recorded as its absence, or not at all)."""
        if not o.identity:
            return _default(o, values)
        try:
            value = o.load(config.get(o.name))
            if o.name == "ruleset" or o.name not in config:  # checked whole by loading it
                return value
            return o.parse(value, values["ruleset"]) if o.by_ruleset else o.parse(value)
        except (ValueError, TypeError) as exc:
            if config.get(o.name) is None:
                raise ValueError(f"config.{o.name} is missing") from None
            raise ValueError(f"config.{o.name}: {exc}") from None

    def _resumed(self, root: Path, given: Values, stored: Values) -> Values:
        """The resumed run's values: its own, with the given identity options checked
        against them, and the other options given or their defaults."""
        values = dict(stored)
        for o in self.options:
            if o.identity and o.name in given:
                want = given[o.name] if o.fit is None else o.fit(given[o.name], stored)
                if want != stored[o.name]:
                    raise self.run.error(self.different_run(root, o.name, want, stored[o.name]))
            elif not o.identity:
                values[o.name] = given[o.name] if o.name in given else _default(o, values)
        return values

    def identity(self, config: Any) -> Values:
        """What decides the stored bytes, as the manifest records it (checked on --resume)."""
        stored = {o.name: o.store(getattr(config, o.name)) for o in self.options if o.identity}
        return {name: value for name, value in stored.items() if value is not None}

    def same_run(self, config: Any, root: Path, manifest: dict) -> None:
        """--resume completes the run in ``root`` only with the options it was made with;
        the first option that differs is named (the kind's error)."""
        stored = self._loaded(root, manifest)
        for name, have in stored.items():
            if getattr(config, name) != have:
                raise self.run.error(self.different_run(root, name, getattr(config, name), have))

    def different_run(self, root: Path, name: str, given: Any, stored: Any) -> str:
        """``RUN holds a different game run: --seed 2 differs from the run's 1; …``."""
        what = self.option(name).named()
        return (
            f"{root} holds a different {self.noun}: {what} {show(given)} differs from the "
            f"run's {show(stored)}; resume with the run's options (or leave them out), or "
            "replace it with --force"
        )


def _default(option: Option, values: Values) -> Any:
    assert option.default is not None  # the count is required: checked before
    return option.default(values)


def _json(value: Any) -> str:
    """``value`` as JSON text: equal for values a manifest holds alike (``20`` is not ``20.0``
    nor ``true``)."""
    return json.dumps(value, sort_keys=True)


def _fitted(options: tuple[Option, ...], values: Values) -> Values:
    """``values`` as a run records them (``Option.fit``)."""
    return {
        o.name: values[o.name] if o.fit is None else o.fit(values[o.name], values) for o in options
    }
