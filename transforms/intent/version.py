"""Bump CODE_VERSION whenever training or feature code changes: it keys cached models and Dagster code versions."""

CODE_VERSION = "intent-5"  # 4: MiniLM features with int8 dense weights; 5: record context (Jira issue type, resolution)
