"""The page itself: orchestration (``build``), the run table at its top (``meta``), HTML and
Markdown (``render``), number formatting (``format``), the figures by name and their shared
style (``figures``, ``figure_kit``), drawing them on the worker pool (``drawing``, ``pool``).

Nothing here may import matplotlib or pandas on import of the package: ``pool`` is imported
by the command line before the report starts."""
