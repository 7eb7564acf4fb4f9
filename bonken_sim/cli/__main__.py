"""`python -m bonken_sim.cli` runs the command line."""

from bonken_sim.cli import main

main()
