"""Bump CODE_VERSION whenever training or feature code changes: it keys cached models and Dagster code versions."""

CODE_VERSION = "intent-6"  # 4: int8 MiniLM features; 5: record context (Jira issue type, resolution); 6: layer-4 tap
