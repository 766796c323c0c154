"""Readers pinned to the writer, on every backend: the first write stamps the graph with the embedder, the graph schema
and the graphiti-core version; a reader of a graph stamped with another graphiti-core version warns once (naming both
and the upgrade section), one with another embedder or another schema major refuses before answering."""

import asyncio
import logging

import pytest

from connectors.registry import fact_extractor
from graph.backend import META_LABEL
from graph.config import EmbedderMismatch
from graph.pins import SCHEMA_VERSION, SchemaMismatch, graphiti_version
from graph.read.reader import GraphReader
from graph.write.writer import GraphWriter
from tests.graph.audit_scenario import QUESTION, Clock, at, ingest


def stamped(config, group_id: str, *, write: bool = True, **overrides) -> dict:
    """Given a graph written once, optionally re-stamped as if another version had written it."""

    async def go():
        clock = Clock(at("2026-01-06", 2))
        async with GraphWriter(config, clock=clock, extractor=fact_extractor()) as writer:
            if write:
                await ingest(writer, clock, group_id, [0])
            for prop, value in overrides.items():
                await writer.backend.query(
                    group_id, f"MATCH (m:{META_LABEL} {{group_id: $g}}) SET m.{prop} = $v", g=group_id, v=value
                )
            rows = await writer.backend.query(
                group_id,
                f"MATCH (m:{META_LABEL} {{group_id: $g}}) RETURN "
                "m.schema_version AS s, m.graphiti_version AS v, "
                "m.embedder AS e, m.created_graphiti_version AS cv",
                g=group_id,
            )
        return rows[0]

    return asyncio.run(go())


def test_first_write_records_schema_and_graphiti_versions(backend_config, group_id):
    config = backend_config()
    row = stamped(config, group_id)
    assert row["s"] == SCHEMA_VERSION
    assert row["v"] == graphiti_version() and row["v"][0].isdigit()
    assert row["e"] == config.embedder_identity() and row["cv"] == row["v"]


def test_other_graphiti_version_warns_once_on_every_reader_path(backend_config, group_id, caplog):
    config = backend_config()
    stamped(config, group_id, graphiti_version="0.0.1")

    async def read():
        async with GraphReader(config) as reader:
            await reader.search_facts(QUESTION, group_id=group_id)
            await reader.list_episodes(group_id=group_id)
            await reader.fact_history("Acme Corp", group_id=group_id)
            return await reader.search_facts(QUESTION, group_id=group_id, known_at=at("2026-02-01"))

    with caplog.at_level(logging.WARNING, logger="graph.pins"):
        hits = asyncio.run(read())
        asyncio.run(read())  # a second reader in the same process: still once
    warned = [r.getMessage() for r in caplog.records if "graphiti-core" in r.getMessage()]
    assert len(warned) == 1
    assert "0.0.1" in warned[0] and graphiti_version() in warned[0] and "docs/operations.md" in warned[0]
    assert hits  # a warning, not a refusal


def test_other_embedder_or_schema_major_refuses_every_reader_path(backend_config, group_id):
    config = backend_config()
    stamped(config, group_id, embedder="openai:text-embedding-3-small")

    async def read(call):
        async with GraphReader(config) as reader:
            return await call(reader)

    for call in (
        lambda r: r.search_facts(QUESTION, group_id=group_id),
        lambda r: r.list_episodes(group_id=group_id),
        lambda r: r.get_episode("acct-001/hist-1", group_id=group_id),
        lambda r: r.fact_history("Acme Corp", group_id=group_id),
    ):
        with pytest.raises(EmbedderMismatch, match="openai:text-embedding-3-small"):
            asyncio.run(read(call))


def test_schema_major_refuses_and_minor_warns(backend_config, group_id, caplog):
    config = backend_config()
    stamped(config, group_id, schema_version="2.0")

    async def read():
        async with GraphReader(config) as reader:
            return await reader.search_episodes("contact", group_id=group_id)

    with pytest.raises(SchemaMismatch, match=r"schema 2\.0.*reads schema 1\.1"):
        asyncio.run(read())

    stamped(config, group_id, write=False, schema_version="1.0")
    with caplog.at_level(logging.WARNING, logger="graph.pins"):
        asyncio.run(read())
    assert any("schema 1.0" in r.getMessage() and SCHEMA_VERSION in r.getMessage() for r in caplog.records)
