"""Reading the graph: search, history, episodes (the read commands and MCP import only this and graph/)."""
