"""Speed measurements: `bonken-sim bench` and its yardstick kernel."""
