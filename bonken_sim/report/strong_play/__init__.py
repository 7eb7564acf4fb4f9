"""The report's section "Under strong play" (``--strong-deals``, ``--strong-games``)."""
