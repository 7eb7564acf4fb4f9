"""The tables of a deal run, small tidy DataFrames computed from a RunStats, one module per
section of the page (``costs``, ``choice``, ``doubling``) and what they share (``kit``)."""
