"""Writing episodes and facts into the graph (one writer per group; the nightly job and review only)."""
