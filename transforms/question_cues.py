"""The words by which a question asks for a relation: graph/read/search.py ranks facts of a cued relation first.

Kept apart from the rules that write those relations (intent_facts.py, text_date_facts.py):
search reads these word lists on every question, and importing the fact builders pulls the whole episode pipeline in
(~50 ms CPU of every `graphfeed search`, issue 29). tests/graph/test_read_imports.py checks that every cued relation is
one the fact builders write.
"""

# The relation of a date an episode's text confirms (intent_facts.py writes it beside the intent's own relation).
DATE_RELATION = "CONFIRMED_DATE_VALUE"

# Word stems (graph/read/search.py's _stem) by which a question asks for an event relation: any set, all of it.
EVENT_CUES: dict[str, tuple[frozenset[str], ...]] = {
    "ESCALATED_RISK": (frozenset({"escalat"}),),
    "CONFIRMED_DATE": (frozenset({"confirm"}),),
    DATE_RELATION: (frozenset({"confirm"}),),
    "DECIDED": (frozenset({"decid"}), frozenset({"decision"})),
    "REJECTED": (frozenset({"reject"}),),
    "REQUESTED_INFO": (frozenset({"request"}),),
    "REPORTED_STATUS": (frozenset({"report", "status"}),),
    "CLOSED_DEAL": (frozenset({"clos", "deal"}),),
}

# Words by which a question asks for a slot ("when is the go-live of X", "wann ist die Frist"): any set, all of it.
# Plain words; the search stems both sides (graph/read/search.py).
SLOT_CUES: dict[str, tuple[frozenset[str], ...]] = {
    "HAS_GO_LIVE_DATE": tuple(
        frozenset(w.split())
        for w in ("go live", "golive", "go-live", "launch", "livegang", "produktivstart", "inbetriebnahme")
    ),
    "HAS_DELIVERY_DATE": tuple(frozenset({w}) for w in ("delivery", "deliver", "liefertermin", "lieferung")),
    "HAS_DEADLINE": tuple(frozenset({w}) for w in ("deadline", "due", "frist", "stichtag", "fällig")),
    "HAS_RELEASE_DATE": tuple(frozenset({w}) for w in ("release", "releasetermin", "veröffentlichung")),
    "HAS_TARGET_DATE": (frozenset({"target", "date"}), frozenset({"termin"}), frozenset({"zieltermin"})),
}
