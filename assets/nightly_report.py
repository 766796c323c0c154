"""The night's roll-up: per-source totals from the ledger's run records, after every source's graph asset."""

import dagster as dg

from assets.partitions import daily_partitions
from assets.resources import HomeResource, LedgerResource
from flow.settings import SOURCES

REPORT_KEY = dg.AssetKey(["reporting", "nightly_report"])
FIGURES = ("ingested", "duplicates", "failed", "quarantined", "cost_usd")


def build_nightly_report(partitions_def: dg.PartitionsDefinition | None = None) -> dg.AssetsDefinition:
    """The report asset over the code location's daily partitions (default: built from the environment now)."""

    @dg.asset(
        key=REPORT_KEY,
        group_name="reporting",
        partitions_def=partitions_def or daily_partitions(),
        backfill_policy=dg.BackfillPolicy.single_run(),
        deps=[dg.AssetKey([source, "graph"]) for source in SOURCES],
        kinds={"python"},
        description="Per-source totals of the night's graph ingestion (ingested, duplicates, failures, cost, backlog).",
    )
    def nightly_report(
        context: dg.AssetExecutionContext, home: HomeResource, ledger: LedgerResource
    ) -> dg.MaterializeResult:
        keys = set(context.partition_keys)
        rows = {}
        with ledger.open(home.root) as book:
            for source in SOURCES:
                runs = [r for r in book.recent_runs(source, n=50) if r.partition in keys]
                totals = {name: sum(r.counts.get(name, 0) for r in runs) for name in FIGURES}
                totals["backlog"] = book.backlog(source)
                rows[source] = totals
        table = ["| source | " + " | ".join((*FIGURES, "backlog")) + " |", "|---" * (len(FIGURES) + 2) + "|"]
        table += [
            f"| {s} | " + " | ".join(str(round(t[f], 6)) for f in (*FIGURES, "backlog")) + " |" for s, t in rows.items()
        ]
        metadata = {f"total_{name}": sum(t[name] for t in rows.values()) for name in (*FIGURES, "backlog")}
        metadata["total_cost_usd"] = dg.MetadataValue.float(float(metadata["total_cost_usd"]))
        metadata["by_source"] = dg.MetadataValue.md("\n".join(table))
        return dg.MaterializeResult(metadata=metadata)

    return nightly_report
