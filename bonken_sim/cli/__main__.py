"""`python -m bonken_sim.cli` runs the command line, with its exit status."""

import sys

from bonken_sim.cli import main

sys.exit(main())
