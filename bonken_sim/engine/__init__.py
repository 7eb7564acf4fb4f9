"""The one layer that calls the numba core: validates, allocates and calls the kernels."""
