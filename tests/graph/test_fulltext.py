"""The read side builds full-text queries without graphiti_core (graph/fulltext.py): the same strings
graphiti 0.31.2 builds, so BM25 ranks exactly as before issue 29."""

import pytest
from graphiti_core.driver.driver import GraphProvider
from graphiti_core.driver.falkordb.fulltext import build_falkor_fulltext_query
from graphiti_core.search.search_utils import fulltext_query

from graph.fulltext import falkor_fulltext_query, lucene_fulltext_query

QUESTIONS = [
    "Who escalated the risk?",
    "Acme's budget (NW-101) 'phase 1' \"quoted\" a:b/c OR AND NOT",
    "the a is",  # stop-words only
    "",
    "Müller-Lüdenscheid bestätigt den 14.09.2026, 确认",
    " ".join(["word"] * 130),  # too long: no query at all
]


class Neo4jLike:
    provider = GraphProvider.NEO4J
    fulltext_syntax = ""


@pytest.mark.parametrize("question", QUESTIONS)
def test_given_a_question_then_the_falkordb_and_lucene_queries_are_graphitis_own(question):
    for groups in (None, ["acme_1"], ["a-b", "c"]):
        assert falkor_fulltext_query(question, groups) == build_falkor_fulltext_query(question, groups)
    for groups in (["acme"], ["t_1", "t_2"]):
        assert lucene_fulltext_query(question, groups) == fulltext_query(question, groups, Neo4jLike())
