"""Opt-in LLM extraction through Graphiti's add_episode: bounded (rate limits, budgets), measured (tokens, cost) and
reviewable. Nothing here is imported unless a source's extraction mode is "llm" or "both"."""
