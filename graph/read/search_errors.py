"""How a search step's database failure is told apart and reported (a step that fails is degraded, not fatal)."""

import sys


class DatabaseStepError(Exception):
    """Raised inside a step for a timeout or a database-side failure; the step is then reported as degraded."""


def database_errors() -> tuple[type[BaseException], ...]:
    """The read client's error reply, and Neo4j's and redis-py's when their drivers are loaded: a driver that is not
    loaded raised nothing, and importing one to name its error would cost a degraded step ~0.1-0.2 s."""
    from graph.resp import ResponseError

    errors: list[type[BaseException]] = [ResponseError]
    for module, name in (("neo4j.exceptions", "Neo4jError"), ("redis.exceptions", "ResponseError")):
        loaded = sys.modules.get(module)
        if loaded is not None:
            errors.append(getattr(loaded, name))
    return tuple(errors)


def step_failure(exc: BaseException) -> str:
    text = str(getattr(exc, "message", None) or exc)
    if "timed out" in text.lower() or "TransactionTimedOut" in str(getattr(exc, "code", "")):
        return "timeout"
    return f"{type(exc).__name__}: {text[:200]}"
