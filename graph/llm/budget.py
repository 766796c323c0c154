"""Budget checks before each LLM episode. Money is only known after a call, so the check runs before every episode:
a run can overshoot its bound by at most one episode's cost (size that with `graphfeed estimate`). Whatever a bound
leaves out stays pending in the ledger and is reported as backlog."""

import datetime as dt

from graph.llm.store import LLMStore

STOP_RUN = "max_cost"  # same word as the ingest loop's own bound
STOP_SOURCE_NIGHT = "max_cost_source_night"


def stop_reason(
    *,
    source: str,
    spent_this_call: float,
    max_cost_usd: float | None,
    night_caps: dict[str, float],
    store: LLMStore,
    now: dt.datetime,
) -> str | None:
    if max_cost_usd is not None and spent_this_call >= max_cost_usd:
        return STOP_RUN
    cap = night_caps.get(source)
    if cap is not None and store.spent_on_night(source, now.astimezone(dt.UTC).date()) >= cap:
        return STOP_SOURCE_NIGHT
    return None
