"""numba kernels. Importing this package defines kernels but compiles nothing.

The numba release is checked first, before any module here patches numba (``_numba_range``).
"""

import numba

from ._numba_range import check_numba

check_numba(numba.__version__)
