"""The package's version, written once: the package root re-exports it, pyproject.toml reads
it, and modules that need only this string import it from here, not the whole package."""

__version__ = "0.1.0"
