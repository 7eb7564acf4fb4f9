"""Anyone at the table: the player protocol (JSON lines), the player behind ``bonken-sim bot``
and its conformance check (``bot --check``). docs/PROTOCOL.md is the protocol in words."""
