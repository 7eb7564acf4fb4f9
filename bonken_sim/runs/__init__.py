"""Run directories: options, the deal and game runs, their storage and the executors."""
