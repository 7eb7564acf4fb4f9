"""``bonken-sim serve``: a local web app to play Bonken against the computer, ask for hints,
review a game and get advice for a hand (docs/SERVE.md)."""
