"""What the grounding guard (guard.py) drops or clears, by reason: apart from the guard so that `graphfeed ledger`,
a read command, can name them without importing graphiti."""

REASONS = {
    "entity_ungrounded": "an entity whose name is neither in the text nor one of the record's people/organisations",
    "fact_ungrounded": "a fact with an endpoint that is not a grounded entity of this episode",
    "date_unparseable": "a valid_at/invalid_at the model wrote that is not a date (graphiti leaves it empty)",
    "date_after_record": "a valid_at/invalid_at after the record's own time: cleared (the fact keeps the record time)",
    "date_before_floor": "a valid_at/invalid_at before the date floor: cleared (the fact keeps the record time)",
    "date_invalid_before_valid": "an invalid_at before the fact's valid_at: cleared",
    "structured_invalidation": "an LLM invalidation of a fact a system of record wrote: not written",
    "structured_rewrite": "a fact a system of record wrote, matched by the LLM as its own: left as its source wrote it",
}
