"""Fast tier: the rate limiter, Retry-After parsing, date counting, chunking, prices, config checks, the estimate."""

import asyncio
import datetime as dt

import pytest

from graph.config import ConfigError, GraphConfig
from graph.llm.chunking import chunk_episode, chunk_uuid, split_text
from graph.llm.client import count_unparseable_dates, retry_after_seconds
from graph.llm.estimate import CallProfile, estimate_episodes, fit_profile
from graph.llm.pricing import ModelPrice, PriceTable
from graph.llm.rate_limit import RateLimiter
from graph.llm.settings import LLMSettings, llm_settings_from_env
from tests.llm.conftest import mail


class FakeTime:
    def __init__(self):
        self.now = 1000.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_given_rpm_2_when_a_third_request_comes_then_it_waits_for_the_window():
    t = FakeTime()
    limiter = RateLimiter(2, None, clock=t.clock, sleep=t.sleep)

    async def go():
        await limiter.acquire(10)
        t.now += 5
        await limiter.acquire(10)
        await limiter.acquire(10)

    asyncio.run(go())
    # admitted at t=0 and t=5; the third may go when the first leaves the 60 s window: 55 s after t=5
    assert t.slept == [pytest.approx(55.0)] and t.now == pytest.approx(1060.0)


def test_given_tpm_when_tokens_would_overflow_then_the_call_waits_and_settle_uses_real_usage():
    t = FakeTime()
    limiter = RateLimiter(None, 100, clock=t.clock, sleep=t.sleep)

    async def go():
        h = await limiter.acquire(80)
        limiter.settle(h, 30)  # the response said 30 tokens, not 80
        await limiter.acquire(60)  # 30 + 60 <= 100: no wait
        await limiter.acquire(50)  # 90 + 50 > 100: waits

    asyncio.run(go())
    assert len(t.slept) == 1 and t.slept[0] == pytest.approx(60.0)


def test_given_a_retry_after_pause_then_every_caller_waits_that_long():
    t = FakeTime()
    limiter = RateLimiter(None, None, clock=t.clock, sleep=t.sleep)

    async def go():
        limiter.pause(2.5)
        await limiter.acquire(1)

    asyncio.run(go())
    assert limiter.pauses == [2.5] and t.slept == [pytest.approx(2.5)]


def test_retry_after_forms():
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    now = dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.UTC)
    assert retry_after_seconds({"retry-after": "Thu, 01 Jan 2026 12:00:07 GMT"}, now) == 7.0
    assert retry_after_seconds({}) is None
    assert retry_after_seconds({"retry-after": "soon"}) is None


def test_unparseable_dates_are_counted_anywhere_in_a_response():
    payload = {
        "edges": [
            {"valid_at": "2026-04-01T00:00:00Z", "invalid_at": None},
            {"valid_at": "next Tuesday", "invalid_at": "Q3"},
        ]
    }
    assert count_unparseable_dates(payload) == 2
    assert count_unparseable_dates({"valid_at": None, "invalid_at": None}) == 0


def test_chunks_are_bounded_deterministic_and_cover_the_text():
    text = "\n\n".join(f"Paragraph {i}. " + "Word " * 40 for i in range(12))
    chunks = chunk_episode("ep-1", text, 500, overlap=50)
    assert len(chunks) > 1
    assert all(len(c.text) <= 500 for c in chunks)
    assert [c.uuid for c in chunks] == [c.uuid for c in chunk_episode("ep-1", text, 500, overlap=50)]
    assert len({c.uuid for c in chunks}) == len(chunks) and "ep-1" not in {c.uuid for c in chunks}
    for i in range(12):
        assert any(f"Paragraph {i}." in c.text for c in chunks)
    assert chunk_uuid("ep-1", 0, 1) == "ep-1"  # unsplit: the episode's own node
    assert split_text("short", 100) == ["short"]


def test_price_table_costs_per_million_tokens():
    table = PriceTable(prices={"m": ModelPrice(input_per_mtok=2.0, output_per_mtok=8.0)})
    assert table.cost("m", 1_000_000, 500_000) == pytest.approx(6.0)
    assert not table.knows("other")


def test_llm_mode_needs_an_endpoint_and_prices(tmp_path):
    with pytest.raises(ConfigError, match="needs an LLM endpoint"):
        GraphConfig(home=tmp_path, extraction={"email": "llm"}).check()
    with pytest.raises(ConfigError, match="no price for model"):
        GraphConfig(
            home=tmp_path,
            extraction={"email": "both"},
            llm=LLMSettings(base_url="http://x/v1", model="mystery-7b", small_model=None),
        ).check()
    GraphConfig(
        home=tmp_path, extraction={"email": "llm"}, llm=LLMSettings(base_url="http://x/v1", model="gpt-4.1-mini")
    ).check()
    GraphConfig(home=tmp_path).check()  # no endpoint, structured: exactly as before


def test_settings_from_env():
    assert llm_settings_from_env({}) is None
    s = llm_settings_from_env(
        {
            "GRAPHFEED_LLM_BASE_URL": "http://h/v1",
            "GRAPHFEED_LLM_MODEL": "local",
            "GRAPHFEED_LLM_PRICES": '{"local": [0, 0]}',
            "GRAPHFEED_LLM_REVIEW_SOURCES": "email",
            "GRAPHFEED_LLM_REQUESTS_PER_MINUTE": "off",
            "GRAPHFEED_LLM_MAX_COST_PER_SOURCE_NIGHT_USD": "email=2.5,jira=1",
        }
    )
    assert s.model == "local" and s.price_table().cost("local", 10**6, 10**6) == 0.0
    assert s.review_sources == ["email"] and s.requests_per_minute is None
    assert s.max_cost_per_source_night_usd == {"email": 2.5, "jira": 1.0}


def test_estimate_grows_with_content_and_history_refits_it():
    settings = LLMSettings(base_url="http://x/v1", chunk_chars=1000)
    short = [mail("g", f"<{i}>", "Alice met Bob.") for i in range(4)]
    long = [mail("g", f"<L{i}>", "Alice met Bob. " * 300) for i in range(4)]
    e_short = estimate_episodes(short, settings, source="email")
    e_long = estimate_episodes(long, settings, source="email")
    assert e_short.chunks == 4 and e_long.chunks > 4 * 4
    assert e_long.tokens_in > e_short.tokens_in and e_long.cost_usd > e_short.cost_usd
    assert e_short.calls == 20  # default 5 calls per chunk
    skipping = LLMSettings(base_url="http://x/v1", skip_intents=["decision"])
    assert estimate_episodes(short, skipping, source="email").skipped == 4
    # a record that says it has no free text (a CRM contact) is not worth a call; unknown stays worth one
    no_text = [
        e.model_copy(update={"metadata": e.metadata.model_copy(update={"fields": {"free_text": flag}})})
        for e, flag in zip(short, (False, False, True, None))
    ]
    assert estimate_episodes(no_text, settings, source="email").skipped == 2

    # history: tokens_in = 1000 per chunk + 2 per content token exactly -> the fit recovers it
    rows = [
        (ch, chars, 3 * ch, 1000 * ch + 2 * -(-chars // 4), 50 * ch, 0.01 * ch)
        for ch, chars in [(1, 400), (1, 800), (2, 4000), (3, 9000), (1, 100), (2, 2000)]
    ]
    profile = fit_profile(rows)
    assert isinstance(profile, CallProfile)
    assert profile.calls_per_chunk == pytest.approx(3.0)
    assert profile.tokens_in_per_chunk == pytest.approx(1000, rel=1e-6)
    assert profile.tokens_in_per_content_token == pytest.approx(2.0, rel=1e-6)
    assert fit_profile(rows[:3]) is None  # too little history: default profile


def test_estimate_command_prints_calls_tokens_cost_without_calling_a_model(tmp_path, capsys):
    from pipelines.commands import review

    path = tmp_path / "episodes.jsonl"
    path.write_text("\n".join(mail("g", f"<{i}>", "Alice Chen met Bob Stone.").model_dump_json() for i in range(3)))
    config = GraphConfig(
        home=tmp_path,
        extraction={"email": "llm"},
        llm=LLMSettings(base_url="http://127.0.0.1:9/v1", model="gpt-4.1-mini"),
    )
    assert review.estimate(config, "email", episodes_path=path, max_cost_usd=5.0) == 0
    shown = capsys.readouterr().out
    assert "episodes        3" in shown and "LLM calls       15" in shown and "fits" in shown
    assert review.estimate(GraphConfig(home=tmp_path), "email", episodes_path=path) == 1  # no endpoint
