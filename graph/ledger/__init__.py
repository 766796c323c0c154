"""The ledger: which episode was registered, claimed, ingested or failed (exactly-once across reruns)."""
