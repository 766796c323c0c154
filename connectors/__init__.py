"""Source connectors: plain Python, no Dagster. Each yields SourceRecord | RecordFailure and returns a checkpoint."""
