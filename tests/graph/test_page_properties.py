"""Page Properties over two page versions, on FalkorDB and Neo4j, in both arrival orders.

Version 1 (2026-03-02): Owner Lena Ortiz, Status Draft. Version 2 (2026-05-11): Owner Omar Haddad, the Status row
removed. Now -> Omar (from version 2's time); as of April -> Lena with the interval [March 2, May 11); the Status fact
ends where version 2 left its row out. People resolve by e-mail through the export's user objects.
"""

import asyncio
import datetime as dt
import json

import pytest

from connectors.confluence import ConfluenceExportReader
from connectors.registry import fact_extractor
from graph.backend import as_datetime
from graph.read.reader import GraphReader
from graph.write.writer import GraphWriter
from ground.contract import split
from transforms.build import EpisodeSettings, make_episode

pytestmark = pytest.mark.slow

UTC = dt.UTC
V1_AT = dt.datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
V2_AT = dt.datetime(2026, 5, 11, 14, 30, tzinfo=UTC)
LENA = {"accountId": "acc-lena", "displayName": "Lena Ortiz", "email": "lena.ortiz@acme.example"}
OMAR = {"accountId": "acc-omar", "displayName": "Omar Haddad", "email": "omar.haddad@acme.example"}


def details(rows: str) -> str:
    return (
        f'<ac:structured-macro ac:name="details"><ac:rich-text-body><table><tbody>{rows}</tbody></table>'
        "</ac:rich-text-body></ac:structured-macro><p>Cut-over steps follow.</p>"
    )


def page(number: int, at: dt.datetime, editor: dict, storage: str) -> dict:
    return {
        "id": "131073",
        "type": "page",
        "status": "current",
        "title": "Warehouse migration plan",
        "space": {"key": "OPS", "name": "Operations"},
        "history": {"createdDate": V1_AT.isoformat(), "createdBy": LENA},
        "version": {"number": number, "when": at.isoformat(), "by": editor},
        "body": {"storage": {"value": storage, "representation": "storage"}},
    }


def episodes(tmp_path, group_id):
    v1 = details(
        '<tr><th>Owner:</th><td><ac:link><ri:user ri:account-id="acc-lena"/></ac:link></td></tr>'
        '<tr><th>Status</th><td><ac:structured-macro ac:name="status">'
        '<ac:parameter ac:name="title">Draft</ac:parameter></ac:structured-macro></td></tr>'
    )
    v2 = details('<tr><th>owner</th><td><ac:link><ri:user ri:account-id="acc-omar"/></ac:link></td></tr>')
    (tmp_path / "v1.json").write_text(json.dumps(page(1, V1_AT, LENA, v1)))
    (tmp_path / "v2.json").write_text(json.dumps(page(2, V2_AT, OMAR, v2)))
    records, failures = split(ConfluenceExportReader([tmp_path / "v1.json", tmp_path / "v2.json"]).read())
    assert failures == []
    settings = EpisodeSettings(group_id=group_id)
    return [make_episode(r, f"{r.title}\n\n{r.body}", "en", "status_update", 0.9, [], settings) for r in records]


async def property_edges(writer, group_id):
    rows = await writer.backend.query(
        group_id,
        "MATCH (s:Entity)-[e:RELATES_TO]->(o:Entity) WHERE e.group_id = $g AND e.name = 'HAS_PROPERTY' "
        "RETURN e.fact AS fact, e.valid_at AS valid_at, e.invalid_at AS invalid_at, "
        "e.expired_at AS expired_at",
        g=group_id,
    )
    ended = [r for r in rows if r["invalid_at"] is not None]
    assert ended and all(r["expired_at"] is not None for r in ended)  # the graph also knows when it learned it
    return sorted((r["fact"], as_datetime(r["valid_at"]), as_datetime(r["invalid_at"])) for r in rows)


async def run(config, group_id, steps, order):
    async with GraphWriter(config, extractor=fact_extractor()) as writer:
        reader = GraphReader.sharing(writer)
        for i in order:
            await writer.write_batch([steps[i]])
        edges = await property_edges(writer, group_id)
        owners = await writer.backend.query(
            group_id,
            "MATCH (s:Entity)-[e:RELATES_TO]->(o:Entity) WHERE e.group_id = $g AND e.name = 'HAS_PROPERTY' "
            "AND e.property_key = 'owner' RETURN DISTINCT o.key AS key",
            g=group_id,
        )
        question = "Who is the owner of the Warehouse migration plan?"
        now = await reader.search_facts(question, group_id=group_id, limit=10)
        april = await reader.search_facts(
            question, group_id=group_id, as_of=dt.datetime(2026, 4, 1, tzinfo=UTC), limit=10
        )
    return edges, sorted(r["key"] for r in owners), now, april


@pytest.mark.parametrize("order", [[0, 1], [1, 0]], ids=["in-order", "out-of-order"])
def test_given_an_owner_change_and_a_removed_row_then_now_and_as_of_answer_with_intervals(
    order, backend_config, group_id, tmp_path
):
    steps = episodes(tmp_path, group_id)
    edges, owner_keys, now, april = asyncio.run(run(backend_config(), group_id, steps, order))

    assert edges == [
        ("Owner of 'Warehouse migration plan' is Lena Ortiz", V1_AT, V2_AT),
        ("Status of 'Warehouse migration plan' is Draft", V1_AT, V2_AT),  # the row version 2 removed
        ("owner of 'Warehouse migration plan' is Omar Haddad", V2_AT, None),  # one slot, key as written
    ]
    assert owner_keys == ["person:lena.ortiz@acme.example", "person:omar.haddad@acme.example"]  # as in mail
    owner_now = [h for h in now if h.name == "HAS_PROPERTY" and h.fact.lower().startswith("owner of")]
    assert [(h.object, h.valid_at, h.invalid_at) for h in owner_now] == [("Omar Haddad", V2_AT, None)]
    assert owner_now[0].episodes and owner_now[0].episodes[0].uuid == steps[1].id
    owner_april = [h for h in april if h.name == "HAS_PROPERTY" and h.fact.lower().startswith("owner of")]
    assert [(h.object, h.valid_at, h.invalid_at) for h in owner_april] == [("Lena Ortiz", V1_AT, V2_AT)]
    assert not [h for h in now if h.fact.startswith("Status of")]
