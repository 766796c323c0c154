"""The FalkorDB parameters of a structured write, rendered in one pass (bulk_statements._Rendered), read the same as
graphiti's and falkordb-py's own three walkers make them, and a vector written that way is stored exactly."""

import asyncio
import datetime as dt
from zoneinfo import ZoneInfo

import numpy as np
from falkordb.helpers import stringify_param_value
from graphiti_core.driver.falkordb_driver import _strip_nul_bytes
from graphiti_core.utils.datetime_utils import convert_datetimes_to_strings

from connectors.registry import fact_extractor
from graph.write.bulk_statements import _Rendered, rendered, vector_text
from graph.write.writer import GraphWriter
from tests.graph.scenario import JUNE, MARCH, TOM, email_episode


def the_drivers_text(value):
    return stringify_param_value(_strip_nul_bytes(convert_datetimes_to_strings(value)))


def test_rows_render_as_the_drivers_would():
    # given rows with every kind of value a bulk statement carries (no vectors)
    rows = [
        {
            "uuid": "e1",
            "name": 'Ana "the boss" \\ Vogel\x00',
            "labels": ["Entity", "Person"],
            "created_at": dt.datetime(2026, 3, 1, 9, 30, tzinfo=ZoneInfo("Europe/Berlin")),
            "valid_at": dt.datetime(2026, 3, 1, 9, 30),
            "invalid_at": None,
            "episodes": ("ep1", "ep2"),
            "summary": "",
            "confidence": 0.125,
            "count": 3,
            "flag": True,
            "attributes": {"nested": [{"when": dt.datetime(2026, 1, 1, tzinfo=dt.UTC)}]},
        }
    ]
    # when rendered once, then as the three walkers would
    ours = str(rendered({"nodes": rows})["nodes"])
    # then the statement text is the same
    assert ours == the_drivers_text(rows)
    # and a rendered value passes the walkers untouched: falkordb-py's stringify returns its text
    value = _Rendered(rows)
    assert the_drivers_text({"v": value}) == "{`v`:" + ours + "}"


def test_a_vector_reads_back_as_the_float32_it_stores():
    # given an embedding as the embedders return it (float32 values as Python floats) and one of full float64 values
    rng = np.random.default_rng(7)
    float32_vector = (rng.standard_normal(384).astype(np.float32) / 20).astype(float).tolist()
    float64_vector = (rng.standard_normal(384) / 20).tolist()
    for vector in (float32_vector, float64_vector):
        # when written as statement text and parsed back as vecf32 does (a double, then a float32)
        text = vector_text(vector)
        parsed = np.array([float(x) for x in text[1:-1].split(",")]).astype(np.float32)
        # then it is the float32 the driver's text (Python's repr of each double) would have stored
        assert np.array_equal(parsed, np.array(vector).astype(np.float32))
        assert len(text) < len(the_drivers_text(vector))
    # and only `*embedding` lists are written that way
    assert str(rendered({"rows": [{"name_embedding": float32_vector}]})["rows"]) == (
        "[{`name_embedding`:" + vector_text(float32_vector) + "}]"
    )


def test_written_vectors_are_stored_exactly(graph_home, group_id):
    from tests.graph.conftest import graph_config

    async def run() -> None:
        async with GraphWriter(
            graph_config("falkordb-embedded", graph_home), clock=lambda: JUNE, extractor=fact_extractor()
        ) as writer:
            # given a mail written through the bulk path
            await writer.write_batch(
                [email_episode(group_id, "<v1@acme.example>", MARCH, title="Q2 budget", to=(TOM,))]
            )
            # when its stored name vectors are read back
            rows = await writer.backend.query(
                group_id,
                "MATCH (n:Entity) WHERE n.group_id = $g RETURN n.name AS name, n.name_embedding AS v",
                g=group_id,
            )
            # then each is the embedder's vector as float32, value for value
            assert rows
            for row in rows:
                want = np.array((await writer.embedder.create_batch([row["name"]]))[0], dtype=np.float32)
                assert np.array_equal(np.array(row["v"], dtype=np.float32), want), row["name"]

    asyncio.run(run())
