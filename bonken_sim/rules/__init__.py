"""Rules in Python terms: contract and card names, rulesets and presets, in words."""
