"""A deal run in the report: its streamed statistics (``stats``), the tables and figures made
from them, and the page's sections with their findings."""
