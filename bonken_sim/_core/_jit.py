"""The one place that calls numba.njit.

Every kernel is compiled with ``cache=True``. numba's cache only notices edits to the file a
function is defined in, not to helpers it calls in other files, so the cache directory is keyed
on a hash of all core sources: an edit anywhere in ``_core`` gives a fresh cache and stale
kernels never run.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import sys
from pathlib import Path

import numba
from llvmlite import ir
from numba import types
from numba.core import bytecode, event
from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.core.dispatcher import Dispatcher
from numba.extending import intrinsic

from . import _numba_codegen, _numba_inline, _numba_link

_CORE_DIR = Path(__file__).resolve().parent


def _source_hash() -> str:
    digest = hashlib.sha256(numba.__version__.encode())
    for path in sorted(_CORE_DIR.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    """Where compiled kernels are cached (``BONKEN_SIM_CACHE_DIR`` overrides the root)."""
    root = os.environ.get("BONKEN_SIM_CACHE_DIR")
    if root:
        base = Path(root)
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "bonken-sim"
    return base / "numba" / _source_hash()


numba.config.CACHE_DIR = str(cache_dir())  # type: ignore[attr-defined]  # set at runtime


class _RandomIds:
    """Ids for numba to tell compiled functions apart, drawn at random (63 bits).

    numba names each compiled function by its qualified name, its argument types and an id
    that counts up from 1 in every process (``FunctionIdentity._unique_ids``). Two builds of
    one closure (the play loops built per contract family, say) compiled in two processes
    can so get the same name: ``engine.warmup`` compiles a level's loops in two processes,
    and any command may load functions other processes cached. A kernel compiled over both
    then links two functions of one name, and LLVM keeps one body for both calls: a run
    played one contract family with another family's loop and never ended (numba issue
    10486). Drawn at random per compile (after a fork too), ids do not meet across
    processes. The id is only part of the name: the cache's keys do not hold it."""

    def __iter__(self):
        return self

    def __next__(self) -> int:
        return int.from_bytes(os.urandom(8), "little") >> 1


# numba types the counter as itertools.count; it only ever calls next() on it
bytecode.FunctionIdentity._unique_ids = _RandomIds()  # type: ignore[assignment]
_numba_inline.install()  # compile time only: see _numba_inline
_numba_link.install()  # compile time only: see _numba_link
_numba_codegen.install(platform.machine())  # before any kernel compiles: see _numba_codegen


def _stable(value):
    """A closure cell's value as the same data in every process: a jit function by its name
    and its own cells (numba's pickle of a jit function holds an id drawn per process)."""
    if isinstance(value, Dispatcher):
        fn = value.py_func
        return ("jit", fn.__module__, fn.__qualname__, closure_data(fn))
    if isinstance(value, tuple):
        return tuple(_stable(v) for v in value)
    return value  # numbers, booleans, None: their repr is their value


def closure_data(fn):
    """The cells of the closure ``fn`` as the same data in every process (its cache key)."""
    return tuple(_stable(cell.cell_contents) for cell in fn.__closure__ or ())


class _ClosureCache(FunctionCache):
    """numba's cache of one function, keyed on its closure as data.

    The kernels built per tier level (``playout``) and the play loops built per strategy
    family are closures over other jit functions. numba keys a closure's cache entry on a
    pickle of its cells, and that pickle of a jit function changes from process to process,
    so such a kernel was never found in the cache and compiled again in every process. Here
    a jit function in a cell counts by its module, name and cells; a source edit anywhere in
    the core changes the cache folder (``cache_dir``) anyway.
    """

    def __init__(self, py_func):
        super().__init__(py_func)
        files = self._cache_file
        self._cache_file = _EntryFiles(
            files._cache_path, files._index_name[: -len(".nbi")], files._source_stamp
        )

    def _index_key(self, sig, codegen):
        code = hashlib.sha256(self._py_func.__code__.co_code).hexdigest()
        cells = hashlib.sha256(repr(closure_data(self._py_func)).encode()).hexdigest()
        return (sig, codegen.magic_tuple(), (code, cells))

    def _load_overload(self, sig, target_context):
        """The cached build, or None (compiled then): an entry that reads but cannot be
        rebuilt (damaged in a way its pickle did not show) is discarded like an unreadable
        one (``_EntryFiles``)."""
        try:
            return super()._load_overload(sig, target_context)
        except Exception as exc:
            files = self._cache_file
            key = self._index_key(sig, target_context.codegen())
            discard(Path(files._data_path(files._entry_name(key))), exc)
            return None


class _EntryFiles(IndexDataCacheFile):
    """numba's index and data files of one function's cache, each entry's data file named by
    its key. numba numbers a new entry's file after the entries the index lists, so two
    processes adding different builds of one function at once (``engine.warmup`` compiles
    in two) could both write file 1, and the index would name the other build's code. Named
    by key, each build has its own file; and an entry whose index update the other process
    overwrote is still found, by its name (the cache folder is keyed on the core's sources,
    so a file there never holds stale code)."""

    def _entry_name(self, key):
        digest = hashlib.sha256(repr(key).encode()).hexdigest()[:16]
        return f"{self._index_name[: -len('.nbi')]}.{digest}.nbc"

    def save(self, key, data):
        name = self._entry_name(key)
        self._save_data(name, data)  # the data first: an index never names a missing file
        overloads = self._load_index()
        if overloads.get(key) != name:
            overloads[key] = name
            self._save_index(overloads)

    def load(self, key):
        data = super().load(key)
        if data is None:
            with contextlib.suppress(OSError):
                data = self._load_data(self._entry_name(key))
        return data

    # A cache file that cannot be read (truncated by a full disk or a killed process,
    # overwritten with junk) is removed and its kernel compiled again, instead of failing
    # every command that loads it. numba writes each file under a temporary name and renames
    # it, so a reader never sees another process's half-written file.

    def _load_index(self):
        try:
            return super()._load_index()
        except Exception as exc:
            discard(Path(self._index_path), exc)
            return {}

    def _load_data(self, name):
        try:
            return super()._load_data(name)
        except OSError:
            raise
        except Exception as exc:
            discard(Path(self._data_path(name)), exc)
            return None


def discard(path: Path, exc: BaseException) -> None:
    """Remove a damaged cache file, and say so in one line (its kernel compiles again)."""
    with contextlib.suppress(OSError):
        path.unlink()
    why = str(exc) or type(exc).__name__
    print(
        f"bonken-sim: the kernel cache file {path} was damaged ({why}); "
        "removed, its kernel is compiled again",
        file=sys.stderr,
        flush=True,
    )


def _njit(fn, options):
    options = dict(options)
    if options.pop("_link_late", False):
        _numba_link.link_late(fn.__qualname__)
    if options.pop("_stock_codegen", False):
        _numba_codegen.stock(fn.__qualname__)
    dispatcher = numba.njit(**options)(fn)
    if options["cache"]:
        dispatcher._cache = _ClosureCache(dispatcher.py_func)
    return dispatcher


def cached(dispatcher, sig):
    """Whether numba's cache holds ``dispatcher``'s build for the argument types ``sig``
    (loaded, then, as a call would; nothing is compiled)."""
    if tuple(sig) in dispatcher.overloads:
        return True
    cres = dispatcher._cache.load_overload(tuple(sig), dispatcher.targetctx)
    if cres is None:
        return False
    dispatcher.targetctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
    dispatcher.add_overload(cres)
    return True


def jit(fn=None, **options):
    """``numba.njit`` with the project's fixed options (cache on, GIL released).

    ``_nrt=False`` (numba's switch for its reference-counting runtime) is for the play loops
    and the per-deal drivers, which allocate nothing: with reference counting, every call that
    passes arrays costs two atomic operations per array (measured: about 0.2 µs per playout,
    a sixth of a random playout, and more per game deal). Such a function cannot allocate, so
    each batch kernel allocates its scratch in a thin wrapper and loops in an ``_nrt=False``
    function.

    ``_link_late=True`` is for the dispatchers and kernels over the play loops: their own code
    is optimized before the loops are linked in, not the loops once more with it
    (``_numba_link``). Never for a function called per card.

    ``_stock_codegen=True`` compiles with LLVM's default options, not the kernels' own
    (``_numba_codegen``): for the bench's yardsticks, which stand for a plain numba kernel.
    """
    options.setdefault("cache", True)
    options.setdefault("nogil", True)
    options.setdefault("error_model", "numpy")
    if fn is None:
        return lambda f: _njit(f, options)
    return _njit(fn, options)


class _CompileListener(event.Listener):
    def __init__(self, on_start, on_end):
        self.on_start_cb, self.on_end_cb = on_start, on_end

    def on_start(self, ev):
        self.on_start_cb()

    def on_end(self, ev):
        self.on_end_cb()


@contextlib.contextmanager
def compiles_watched(on_start, on_end):
    """Call ``on_start()`` and ``on_end()`` as numba starts and ends compiling a function
    (nested: a kernel's compile holds those of the functions it calls) inside the block.
    A kernel loaded from the cache is no compile: numba signals only cache misses."""
    with event.install_listener("numba:compile", _CompileListener(on_start, on_end)):
        yield


_I1_FALSE = ir.Constant(ir.IntType(1), 0)


def _u64_intrinsic(name, doc, emit):
    """A numba intrinsic of one uint64 argument that compiles to the single LLVM operation
    ``emit(builder, x)`` (a bit-count instruction)."""

    def typer(typingctx, x):
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):
            return emit(builder, args[0])

        return types.uint64(types.uint64), codegen

    typer.__name__ = typer.__qualname__ = name
    typer.__doc__ = doc
    return intrinsic(typer)


popcnt = _u64_intrinsic(
    "popcnt", "Number of set bits of a uint64 (one POPCNT instruction).", lambda b, x: b.ctpop(x)
)
ctz = _u64_intrinsic(
    "ctz", "Index of the lowest set bit of a non-zero uint64.", lambda b, x: b.cttz(x, _I1_FALSE)
)
clz = _u64_intrinsic(
    "clz", "Number of leading zero bits of a uint64.", lambda b, x: b.ctlz(x, _I1_FALSE)
)
