"""Game runs beside a deal run (``report --games``): checked and pooled over deal sets
(``stats``, ``moments``), their tables and the page's section."""
