"""The Dagster-free flow layer: stage records, build episodes, ingest the backlog, staging files.

assets/ call it and map its results to metadata; tests drive it without Dagster.
"""
