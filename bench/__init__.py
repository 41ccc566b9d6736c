"""Benchmarks that print figures: run one with ``python -m bench.<name>``."""
