"""Game runs in the report: a game run's own report (``stats``, ``sections``, ``findings``),
game runs beside a deal run (``game_set``), and the figures of both (``figures``)."""
