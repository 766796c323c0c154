"""The pipelined write (GraphWriter.write_batches) extracts each episode's facts once: the prefetch that embeds a
coming batch hands its facts to that batch's write (issue 34 part 3: the second extraction cost ~1 CPU-ms per mail)."""

import asyncio
import datetime as dt
from collections import Counter

from connectors.registry import episode_facts
from graph.write.writer import GraphWriter
from tests.graph.conftest import graph_config
from tests.graph.scenario import JUNE, MARCH, TOM, email_episode


def test_each_episode_is_extracted_once_and_written_the_same(graph_home, group_id):
    calls: Counter[str] = Counter()

    def counting(episode, domain_orgs):
        calls[episode.id] += 1
        return episode_facts(episode, domain_orgs)

    mails = [
        email_episode(group_id, f"<p{i}@acme.example>", MARCH + dt.timedelta(days=i), title=f"Topic {i}", to=(TOM,))
        for i in range(6)
    ]

    async def facts_of(writer: GraphWriter, group: str) -> list[tuple[str, str]]:
        rows = await writer.backend.query(
            group, "MATCH ()-[e:RELATES_TO]->() WHERE e.group_id = $g RETURN e.name AS n, e.fact AS f", g=group
        )
        return sorted((r["n"], r["f"]) for r in rows)

    async def run() -> None:
        config = graph_config("falkordb-embedded", graph_home)
        async with GraphWriter(config, extractor=counting, clock=lambda: JUNE) as writer:
            # given six mails written in three pipelined batches
            results = await writer.write_batches([mails[0:2], mails[2:4], mails[4:6]])
            # then each was extracted once, nothing is left over, and every episode was written
            assert calls == {m.id: 1 for m in mails}
            assert writer._ahead == {}
            assert sum(r.episodes_written for r in results) == 6
            pipelined = await facts_of(writer, group_id)
            # and a batch written without the pipeline stores the same facts
            other = group_id + "_b"
            await writer.write_batch([m.model_copy(update={"group_id": other}) for m in mails])
            assert await facts_of(writer, other) == pipelined

    asyncio.run(run())
