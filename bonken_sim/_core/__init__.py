"""numba kernels. Importing this package defines kernels but compiles nothing."""
