"""USD per million tokens, per model. Budgets are only as good as this table, so an unpriced model is a config error
(price a free local model at 0 explicitly)."""

from pydantic import BaseModel, Field


class ModelPrice(BaseModel):
    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(default=0.0, ge=0)


# List prices (USD / 1M tokens) at the time of writing; override per deployment (GRAPHFEED_LLM_PRICES).
DEFAULT_PRICES: dict[str, ModelPrice] = {
    "gpt-4.1": ModelPrice(input_per_mtok=2.00, output_per_mtok=8.00),
    "gpt-4.1-mini": ModelPrice(input_per_mtok=0.40, output_per_mtok=1.60),
    "gpt-4.1-nano": ModelPrice(input_per_mtok=0.10, output_per_mtok=0.40),
    "gpt-4o-mini": ModelPrice(input_per_mtok=0.15, output_per_mtok=0.60),
    "text-embedding-3-small": ModelPrice(input_per_mtok=0.02),
    "text-embedding-3-large": ModelPrice(input_per_mtok=0.13),
    "all-MiniLM-L6-v2": ModelPrice(input_per_mtok=0.0),  # the local numpy embedder
}


class PriceTable(BaseModel):
    prices: dict[str, ModelPrice] = Field(default_factory=lambda: dict(DEFAULT_PRICES))

    def knows(self, model: str) -> bool:
        return model in self.prices

    def cost(self, model: str, tokens_in: int, tokens_out: int = 0) -> float:
        price = self.prices.get(model)
        if price is None:
            return 0.0
        return (tokens_in * price.input_per_mtok + tokens_out * price.output_per_mtok) / 1_000_000
