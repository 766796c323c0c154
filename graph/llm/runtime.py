"""The LLM parts one GraphWriter needs, wired once: meter -> rate limiter -> metered client -> Graphiti per group."""

from typing import TYPE_CHECKING, Any

from graph.llm.client import MeteredEmbedder, MeteredLLMClient
from graph.llm.extraction import HoldingGraphiti, LLMExtractor
from graph.llm.meter import UsageMeter
from graph.llm.rate_limit import RateLimiter
from graph.llm.settings import LLMSettings
from graph.llm.store import LLMStore

if TYPE_CHECKING:
    from graph.write.write_context import WriteContext


def store_url(settings: LLMSettings, home: Any) -> str:
    from graph.ledger.ledger import ledger_url_for_home

    return settings.store_url or ledger_url_for_home(home)


class LLMRuntime:
    def __init__(self, context: "WriteContext"):
        config = context.config
        self.settings: LLMSettings = config.llm
        self.context = context
        self.meter = UsageMeter(self.settings.price_table())
        self.limiter = RateLimiter(self.settings.requests_per_minute, self.settings.tokens_per_minute)
        self.client = MeteredLLMClient(self.settings, meter=self.meter, limiter=self.limiter)
        self.store = LLMStore(store_url(self.settings, config.home))
        self.extractor = LLMExtractor(
            self.settings, self.meter, self.store, self.graphiti_for, context.backend, context.clock
        )
        self._graphiti: dict[str, Any] = {}

    async def graphiti_for(self, group_id: str) -> HoldingGraphiti:
        if group_id not in self._graphiti:
            from graph.embedders import EmbeddingReranker

            driver = await self.context.backend.driver(group_id)
            embedder = MeteredEmbedder(self.context.embedder, self.meter, self.context.config.embedder_model)
            self._graphiti[group_id] = HoldingGraphiti(
                graph_driver=driver,
                llm_client=self.client,
                embedder=embedder,
                cross_encoder=EmbeddingReranker(self.context.embedder),
                max_coroutines=self.settings.concurrency,
            )
        return self._graphiti[group_id]

    async def close(self) -> None:
        self._graphiti.clear()
        try:
            await self.client.client.close()
        finally:
            self.store.close()
