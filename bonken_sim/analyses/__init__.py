"""Studies built on the engine: advise, tournament, ladder, compare."""
