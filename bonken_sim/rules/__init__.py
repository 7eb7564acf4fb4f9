"""Rules in Python terms: contract and card names, rulesets and their presets, described in words."""
