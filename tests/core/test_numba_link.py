"""Late linking (``_core._numba_link``): a marked function's own code is optimized before its
callees are linked in, so LLVM leaves the call to a callee where an unmarked function gets
the callee inlined; both give the same results, and the play kernels are marked."""

from __future__ import annotations

import re

import numpy as np
from numba.core import codegen

from bonken_sim._core import _numba_link
from bonken_sim._core._jit import jit
from bonken_sim._core.playout import PLAY_STAKED


@jit(cache=False)
def _callee(x):
    return x * 3 + 1


@jit(cache=False, _link_late=True)
def _late(x):
    return _callee(x) + 1


@jit(cache=False)
def _early(x):
    return _callee(x) + 1


def _own_body(dispatcher) -> str:
    """The LLVM IR of the function ``dispatcher`` compiled for one int64 (its own
    definition only, not the callees linked in with it)."""
    sig = (dispatcher.signatures or [None])[0]
    if sig is None:
        dispatcher(np.int64(2))
        sig = dispatcher.signatures[0]
    text = dispatcher.inspect_llvm(sig)
    name = dispatcher.py_func.__name__
    bodies = re.findall(r"define [^\n]*@(\S+)\([^\n]*\{\n(.*?)\n\}", text, re.S)
    own = [body for fn, body in bodies if name in fn and "_callee" not in fn]
    own = [body for body in own if "cpython" not in body and "cfunc" not in body] or own
    assert own, f"no definition of {name} in its library"
    return "\n".join(own)


def _calls_callee(body: str) -> bool:
    return any("call" in line and "_callee" in line for line in body.splitlines())


def test_late_linked_function_keeps_the_call_and_the_right_value():
    assert _late(np.int64(5)) == _early(np.int64(5)) == 17
    assert _calls_callee(_own_body(_late))
    assert not _calls_callee(_own_body(_early))  # numba's way: the callee inlined


def test_install_wraps_finalize_once():
    wrapped = codegen.CPUCodeLibrary.finalize
    _numba_link.install()
    assert codegen.CPUCodeLibrary.finalize is wrapped
    assert getattr(wrapped, _numba_link._MARK)


def test_the_dispatchers_and_play_kernels_are_late_linked():
    from bonken_sim._core import conditional, game, kernels, staked

    names = {PLAY_STAKED[0].py_func.__qualname__}
    for builds in (kernels._BUILDS, conditional._BUILDS, staked._BUILDS):
        level0 = builds[0] if isinstance(builds[0], tuple) else (builds[0],)
        names |= {d.py_func.__qualname__ for d in level0}
    assert names <= _numba_link._LATE
    # the game kernel is not: late linked, basic games ran at about 0.6 times the speed
    assert game._BUILDS[0].py_func.__qualname__ not in _numba_link._LATE
    # a play loop is never late linked: it needs its per-card helpers inlined
    from bonken_sim._core.play_tricks import tricks_negative

    assert tricks_negative.py_func.__qualname__ not in _numba_link._LATE
