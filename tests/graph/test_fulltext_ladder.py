"""FalkorDB's full-text step over a large group (graph/read/fulltext_ladder.py): once the question's words match
more facts than the scan bound, the facts holding every word come first and the step reads a bounded number of
matches; below the bound it is the exact query. The bound is lowered here so a small synthetic graph crosses it."""

import asyncio
import datetime as dt

import pytest

from bench.synthetic_graph import write_synthetic
from connectors.registry import fact_extractor
from graph.fulltext import falkor_fulltext_query
from graph.read import fulltext_ladder
from graph.read.fulltext_ladder import falkor_words, ladder, relation_scope
from graph.read.search_steps import HOLDS, SearchSteps
from graph.write.writer import GraphWriter
from tests.graph.test_fulltext import QUESTIONS

QUESTION = "Who is the contact person of Globex?"


@pytest.mark.parametrize("question", QUESTIONS)
def test_given_a_falkordb_query_then_its_words_are_read_back(question):
    # given the query graphiti's builder makes, when its words are read back, then they are the question's words
    text = falkor_fulltext_query(question, None)
    words = falkor_words(text)
    assert " | ".join(words) == text.strip()[1:-1] if text else words == []


def test_the_ladder_requires_every_word_first_and_ends_with_any_word():
    # given words rarest first, then every word is required first, the most common becomes optional first, OR last
    assert ladder(["Globex", "contact", "person"]) == [
        "Globex contact person",
        "Globex contact ~person",
        "Globex ~contact ~person",
        "(Globex | contact | person)",
    ]
    assert ladder(["Globex"]) == ["Globex"]


def test_a_narrowed_search_names_its_relations_to_the_index_and_only_plain_names():
    # given the relations a question names, then the index is asked for their facts (lower-cased tokens)
    assert relation_scope(["HAS_CONTACT", "WORKS_AT"]) == "@name:(has_contact | works_at) "
    # and with no relations, or a name the index would split into several tokens, the query is not scoped
    assert relation_scope(None) == relation_scope([]) == relation_scope(["HAS-CONTACT"]) == ""


def test_a_large_match_is_read_in_stages_and_facts_with_every_word_come_first(graph_home, group_id, monkeypatch):
    from tests.graph.conftest import graph_config

    async def run():
        async with GraphWriter(graph_config("falkordb-embedded", graph_home), extractor=fact_extractor()) as writer:
            # given a synthetic company of 2,000 facts whose hub words match hundreds of them
            await write_synthetic(writer, group_id, 2000)
            driver = await writer.backend.driver(group_id)
            steps = SearchSteps(driver, group_id, 60_000)
            text = falkor_fulltext_query(QUESTION, None)
            # when the step runs exactly (every match scored) and in stages (at most 100 matches per stage)
            monkeypatch.setattr(fulltext_ladder, "FULLTEXT_SCAN", None)
            exact = await steps.edge_fulltext(text, 30, None)
            monkeypatch.setattr(fulltext_ladder, "FULLTEXT_SCAN", 100)
            counts = await fulltext_ladder.term_counts(steps, falkor_words(text), 100)
            staged = await steps.edge_fulltext(text, 30, None)
            at = dt.datetime(2025, 6, 1, tzinfo=dt.UTC)
            staged_then = await steps.edge_fulltext(text, 30, at)
            held = await steps.rows(
                f"MATCH ()-[e:RELATES_TO]->() WHERE {HOLDS} RETURN e.uuid AS uuid", at=at.isoformat()
            )
            monkeypatch.setattr(fulltext_ladder, "FULLTEXT_SCAN", 10_000)
            under_bound = await steps.edge_fulltext(text, 30, None)
            # and narrowed to one relation (the question names it): every match read and filtered after the index
            # call, the index asked for the relation's facts (below the bound), and in stages
            contact = steps.narrowed(["HAS_CONTACT"])
            monkeypatch.setattr(fulltext_ladder, "FULLTEXT_SCAN", None)
            unscoped = await contact.edge_fulltext(text, 2000, None)
            monkeypatch.setattr(fulltext_ladder, "FULLTEXT_SCAN", 10_000)
            scoped = await contact.edge_fulltext(text, 2000, None)
            monkeypatch.setattr(fulltext_ladder, "FULLTEXT_SCAN", 100)
            narrowed = await contact.edge_fulltext(text, 30, None)
            absent = await steps.narrowed(["HAS_RELEASE_DATE"]).any_edge(), await contact.any_edge()
            found = {e.uuid for e in unscoped}, {e.uuid for e in scoped}, narrowed
            return exact, counts, staged, staged_then, {r["uuid"] for r in held}, under_bound, found, absent

    exact, counts, staged, staged_then, held, under_bound, (unscoped, scoped, narrowed), absent = asyncio.run(run())
    # then the words match more than the bound together (the staged path ran) and a full pool comes back
    assert sum(counts.values()) > 100 and len(staged) == 30 == len(exact)
    # and the contact facts of Globex (every word of the question present) lead, as many as the graph holds
    answering = [e.fact.endswith("is the contact person of Globex") for e in staged]
    assert answering[0] and answering == sorted(answering, reverse=True)
    assert sum(answering) >= sum(e.fact.endswith("is the contact person of Globex") for e in exact)
    # and as of a date every fact holds then
    assert staged_then and {e.uuid for e in staged_then} <= held
    # and below the bound the step is the exact query
    assert [e.uuid for e in under_bound] == [e.uuid for e in exact]
    # and the index scoped to the relation finds every fact of it the unscoped query finds, none else; in stages
    # too, only the relation's facts come, the contacts of Globex first
    assert unscoped and scoped == unscoped
    assert len(narrowed) == 30 and {e.name for e in narrowed} == {"HAS_CONTACT"}
    assert narrowed[0].fact.endswith("is the contact person of Globex")
    # and a relation the group never wrote is known to be absent before any index call
    assert absent == (False, True)
