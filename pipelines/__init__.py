"""Dagster wiring and the graphfeed command line. Keep this __init__ empty: assets/ imports from here."""
