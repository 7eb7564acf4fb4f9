"""The figures of a deal run's page: contract costs and choice (``contracts``), doubling."""
