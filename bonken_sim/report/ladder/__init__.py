"""A strategy ladder beside a run (``report --ladder``): read and checked against the run
(``read``), its section and figure."""
