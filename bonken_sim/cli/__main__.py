"""`python -m bonken_sim.cli` runs the command line."""

import sys

from bonken_sim.cli import main

sys.exit(main())
