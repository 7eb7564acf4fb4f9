"""``bonken-sim serve``: a local web app to play Bonken against the computer, ask for hints,
review a game, get advice for a hand and browse a run (docs/SERVE.md)."""
