"""The fitted contract-choice and doubling models: hand features, the models and their fit."""
