"""Dagster wiring and the graphfeed command line: Definitions, resources, jobs, schedules, sensors, CLI.

Imports go pipelines -> assets -> flow; assets/ and flow/ never import from here."""
