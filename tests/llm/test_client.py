"""The metered client against the scripted OpenAI-compatible server, through the real openai SDK: usage and cost per
prompt, Retry-After, malformed/invalid output, timeouts, small-model routing, json_object mode."""

import asyncio

import pytest
from graphiti_core.llm_client.config import ModelSize
from graphiti_core.prompts.extract_nodes import ExtractedEntities
from graphiti_core.prompts.models import Message

from graph.llm.client import LLMCallFailed, LLMOutputRejected, MeteredLLMClient
from graph.llm.meter import UsageMeter
from tests.llm.conftest import llm_settings


def ask(client, prompt="extract_nodes.extract_text", size=ModelSize.medium):
    messages = [
        Message(role="system", content="You extract entities."),
        Message(role="user", content="<CURRENT MESSAGE>\nAlice Chen met Bob Stone at Acme Corp.\n</CURRENT MESSAGE>"),
    ]
    return client.generate_response(messages, response_model=ExtractedEntities, prompt_name=prompt, model_size=size)


def make(server, **overrides):
    settings = llm_settings(server, **overrides)
    meter = UsageMeter(settings.price_table())
    return MeteredLLMClient(settings, meter=meter), meter, settings


def expected_cost(server, settings) -> float:
    table = settings.price_table()
    total = 0.0
    for r in server.requests:
        if r["status"] == 200:
            total += table.cost(r["model"], r["prompt_tokens"], 0)
    return total


def test_usage_per_prompt_is_recorded_and_priced(llm_server):
    client, meter, settings = make(llm_server)

    async def go():
        with meter.episode("ep-1"):
            a = await ask(client)
            await ask(client, prompt="extract_edges.extract_timestamps", size=ModelSize.small)
        return a

    answer = asyncio.run(go())
    assert [e["name"] for e in answer["extracted_entities"]] == ["Alice Chen", "Bob Stone", "Acme Corp"]
    assert [r["model"] for r in llm_server.requests] == ["scripted-large", "scripted-small"]
    u = meter.episodes["ep-1"]
    assert u.calls == 2 and set(u.by_prompt) == {"extract_nodes.extract_text", "extract_edges.extract_timestamps"}
    assert u.tokens_in == sum(r["prompt_tokens"] for r in llm_server.requests)
    out_cost = settings.price_table().cost(
        "scripted-large", 0, u.by_prompt["extract_nodes.extract_text"].tokens_out
    ) + settings.price_table().cost("scripted-small", 0, u.by_prompt["extract_edges.extract_timestamps"].tokens_out)
    assert u.cost_usd == pytest.approx(expected_cost(llm_server, settings) + out_cost)
    # graphiti's own tracker sees the same numbers (the generic client alone records nothing)
    tracked = client.token_tracker.get_usage()["extract_nodes.extract_text"]
    assert tracked.call_count == 1 and tracked.total_input_tokens == u.by_prompt["extract_nodes.extract_text"].tokens_in


def test_429_with_retry_after_pauses_everyone_then_succeeds(llm_server):
    llm_server.fault("429", retry_after=1)
    client, meter, _ = make(llm_server)
    asyncio.run(ask(client))
    assert [r["status"] for r in llm_server.requests] == [429, 200]
    assert client.limiter.pauses == [1.0]
    assert llm_server.requests[1]["at"] - llm_server.requests[0]["at"] >= 1.0
    assert meter.total.rate_limited == 1 and meter.total.retries == 1 and meter.total.calls == 1


def test_malformed_then_valid_json_is_retried_and_both_attempts_are_paid(llm_server):
    llm_server.fault("malformed")
    client, meter, _ = make(llm_server)
    asyncio.run(ask(client))
    assert meter.total.malformed == 1 and meter.total.calls == 2 and meter.total.retries == 1


def test_the_same_schema_invalid_answer_twice_fails_at_once_not_after_the_transport_retries(llm_server):
    # given a model that keeps giving the same wrong answer, and a transport retry budget of 3
    llm_server.fault("invalid", times=10)
    client, meter, settings = make(llm_server)
    # when it is asked
    with pytest.raises(LLMOutputRejected, match="same invalid answer twice.*does not match ExtractedEntities") as info:
        asyncio.run(ask(client))
    # then it was asked twice, not max_retries + 1 times, and the failure is typed as the model's
    assert settings.max_retries + 1 > 2 == info.value.attempts == len(llm_server.requests)
    assert info.value.kind == "repeated_invalid" and info.value.retryable is False
    assert meter.total.schema_invalid == 2 and meter.total.calls == 2


def test_an_answer_cut_at_max_tokens_is_not_sent_again(llm_server):
    # given a model whose answer runs into max_tokens (finish_reason "length")
    llm_server.fault("length", times=10)
    client, meter, _ = make(llm_server)
    # when it is asked
    with pytest.raises(LLMOutputRejected, match=r"cut at max_tokens=\d+ \(finish_reason=length") as info:
        asyncio.run(ask(client))
    # then one call was made and paid for, and the failure says the answer was truncated
    assert len(llm_server.requests) == 1 and info.value.kind == "truncated"
    assert meter.total.truncated == 1 and meter.total.calls == 1 and meter.total.retries == 0


def test_a_truncated_answer_is_retried_once_with_a_larger_max_tokens_when_configured(llm_server):
    llm_server.fault("length", times=10)
    client, meter, _ = make(llm_server, max_tokens=300, length_retry_max_tokens=900)
    with pytest.raises(LLMOutputRejected, match="retried once with max_tokens=900, and again .*max_tokens=900"):
        asyncio.run(ask(client))
    assert [r["max_tokens"] for r in llm_server.requests] == [300, 900] and meter.total.truncated == 2


def test_a_truncated_answer_then_a_whole_one_with_the_larger_max_tokens_succeeds(llm_server):
    llm_server.fault("length")
    client, _, _ = make(llm_server, max_tokens=300, length_retry_max_tokens=900)
    answer = asyncio.run(ask(client))
    assert answer["extracted_entities"] and [r["max_tokens"] for r in llm_server.requests] == [300, 900]


def test_different_invalid_answers_get_one_retry_only(llm_server):
    llm_server.fault("invalid")
    llm_server.fault("malformed")
    client, meter, _ = make(llm_server)
    with pytest.raises(LLMOutputRejected, match="malformed JSON") as info:
        asyncio.run(ask(client))
    assert len(llm_server.requests) == 2 and info.value.kind == "malformed"
    assert meter.total.schema_invalid == 1 and meter.total.malformed == 1


def test_transport_errors_keep_their_own_retry_budget_next_to_an_invalid_answer(llm_server):
    llm_server.fault("500", times=2)
    llm_server.fault("invalid")
    client, meter, _ = make(llm_server, max_retries=2)
    answer = asyncio.run(ask(client))
    assert answer["extracted_entities"] and [r["status"] for r in llm_server.requests] == [500, 500, 200, 200]
    assert meter.total.server_errors == 2 and meter.total.schema_invalid == 1


def test_a_slow_answer_times_out_and_is_retried(llm_server):
    llm_server.fault("slow", delay=1.5)
    client, meter, _ = make(llm_server, timeout_s=0.5)
    answer = asyncio.run(ask(client))
    assert answer["extracted_entities"] and meter.total.timeouts == 1


def test_server_errors_are_retried_then_fail(llm_server):
    llm_server.fault("500", times=10)
    client, meter, _ = make(llm_server, max_retries=2)
    with pytest.raises(LLMCallFailed, match="HTTP 500"):
        asyncio.run(ask(client))
    assert meter.total.server_errors == 3


def test_json_object_mode_puts_the_schema_in_the_prompt(llm_server):
    client, _, _ = make(llm_server, structured_output="json_object")
    answer = asyncio.run(ask(client))
    assert llm_server.requests[0]["json_mode"] == "json_object" and llm_server.schemas() == ["ExtractedEntities"]
    assert answer["extracted_entities"]


def test_schema_max_items_bounds_every_list_of_the_schema_sent(llm_server):
    client, _, _ = make(llm_server, schema_max_items=4)
    schema = client._build_response_format(ExtractedEntities)["json_schema"]["schema"]
    assert schema["properties"]["extracted_entities"]["maxItems"] == 4
    assert schema["$defs"]["ExtractedEntity"]["properties"]["episode_indices"]["maxItems"] == 4
    plain, _, _ = make(llm_server)
    assert "maxItems" not in str(plain._build_response_format(ExtractedEntities))


def test_settings_max_tokens_caps_what_graphiti_asks_for(llm_server):
    client, _, _ = make(llm_server, max_tokens=300)
    messages = [Message(role="system", content="x"), Message(role="user", content="Alice Chen met Bob Stone.")]
    asyncio.run(client.generate_response(messages, response_model=ExtractedEntities, max_tokens=16384))
    assert [r["max_tokens"] for r in llm_server.requests] == [300]
