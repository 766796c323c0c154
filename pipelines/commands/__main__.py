"""`python -m pipelines.commands ...` is the `graphfeed` console script."""

from pipelines.commands import cli

cli()
