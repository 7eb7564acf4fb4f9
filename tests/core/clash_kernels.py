"""Two builds of one closure and a kernel over both, for ``test_compiled_names``: each
build compiled alone in a process of its own, they would get one compiled name if numba
counted its compile ids from 1 in each process."""

from bonken_sim._core._jit import jit


def _make_add(k):
    @jit
    def add(x):
        return x + k

    return add


plus_one = _make_add(1)
plus_two = _make_add(2)


@jit
def both(x):
    return plus_one(x) * 1000 + plus_two(x)
