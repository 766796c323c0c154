"""Optional Prometheus export: the per-source figures of a night as a text file for node_exporter's textfile collector
(`--collector.textfile.directory`). Written atomically (temp file + rename), as the collector requires.

Figures come from the latest materialisations in the Dagster instance, so the file says what the UI says:
episodes by intent, dedup rate, read and ingest failures, LLM cost and per-episode latency.
"""

import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import dagster as dg
from pydantic import BaseModel

from flow.settings import SOURCES

PREFIX = "graphfeed_"

# (asset stage, metadata label, metric name, help)
FIGURES: tuple[tuple[str, str, str, str], ...] = (
    ("raw_records", "records", "records", "Records read for the partition."),
    ("raw_records", "failures", "read_failures", "Records that failed to read (RecordFailure)."),
    ("episodes", "episodes", "episodes", "Episodes after dedup."),
    ("episodes", "duplicates", "duplicates", "Records merged as duplicates."),
    ("episodes", "dedup_rate", "dedup_rate", "Duplicates / records."),
    ("episodes", "build_failures", "build_failures", "Records that could not become an episode."),
    ("graph", "ingested", "ingested", "Episodes written to the graph."),
    ("graph", "failed", "ingest_failed", "Episodes that failed to ingest (will be retried)."),
    ("graph", "quarantined", "quarantined", "Episodes quarantined after the last attempt."),
    ("graph", "backlog", "backlog", "Episodes pending in the ledger after the run."),
    ("graph", "llm_cost_usd", "llm_cost_usd", "LLM spend of the run in USD."),
    ("graph", "seconds_per_episode_p50", "seconds_per_episode_p50", "Median graph write latency per episode."),
    ("graph", "seconds_per_episode_p95", "seconds_per_episode_p95", "95th percentile write latency per episode."),
)
INTENT_HELP = "Episodes by intent."


class Sample(BaseModel):
    name: str
    labels: dict[str, str]
    value: float
    help: str


def _latest(instance: dg.DagsterInstance, key: dg.AssetKey, partition: str | None):
    records_filter = dg.AssetRecordsFilter(asset_key=key, asset_partitions=[partition] if partition else None)
    result = instance.fetch_materializations(records_filter, limit=1)
    return result.records[0] if result.records else None


def collect(
    instance: dg.DagsterInstance, partition: str | None = None, sources: Sequence[str] = SOURCES
) -> list[Sample]:
    """Samples for one partition (or the latest materialisation of each asset when `partition` is None)."""
    samples: list[Sample] = []
    for source in sources:
        records = {
            stage: _latest(instance, dg.AssetKey([source, stage]), partition)
            for stage in ("raw_records", "episodes", "graph")
        }
        for stage, label, name, help_text in FIGURES:
            record = records[stage]
            if record is None or label not in record.asset_materialization.metadata:
                continue
            value = record.asset_materialization.metadata[label].value
            if isinstance(value, (int, float)):
                samples.append(
                    Sample(name=PREFIX + name, labels={"source": source}, value=float(value), help=help_text)
                )
        if records["episodes"] is not None:
            for label, entry in sorted(records["episodes"].asset_materialization.metadata.items()):
                if label.startswith("intent/") and isinstance(entry.value, (int, float)):
                    samples.append(
                        Sample(
                            name=PREFIX + "episodes_by_intent",
                            labels={"source": source, "intent": label.split("/", 1)[1]},
                            value=float(entry.value),
                            help=INTENT_HELP,
                        )
                    )
        latest = records["graph"] or records["episodes"] or records["raw_records"]
        if latest is not None:
            samples.append(
                Sample(
                    name=PREFIX + "last_materialization_timestamp_seconds",
                    labels={"source": source},
                    value=latest.timestamp,
                    help="When the figures were recorded (Unix time).",
                )
            )
    return samples


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _number(value: float) -> str:
    return repr(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(float(value))


def render(samples: Iterable[Sample]) -> str:
    """Prometheus text exposition format 0.0.4: one HELP/TYPE block per metric, gauges throughout."""
    by_name: dict[str, list[Sample]] = {}
    for sample in samples:
        by_name.setdefault(sample.name, []).append(sample)
    lines: list[str] = []
    for name, group in by_name.items():
        if not re.fullmatch(r"[a-zA-Z_:][a-zA-Z0-9_:]*", name):
            raise ValueError(f"not a Prometheus metric name: {name!r}")
        lines.append(f"# HELP {name} {group[0].help}")
        lines.append(f"# TYPE {name} gauge")
        for sample in group:
            labels = ",".join(f'{k}="{_escape(v)}"' for k, v in sorted(sample.labels.items()))
            lines.append(f"{name}{{{labels}}} {_number(sample.value)}")
    return "\n".join(lines) + "\n"


def write_textfile(path: str | Path, text: str) -> Path:
    """Atomic: node_exporter never reads half a file (temp file in the same folder, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return path


TEXTFILE_ENV = "GRAPHFEED_PROMETHEUS_TEXTFILE"


def prometheus_textfile(context: dg.SensorEvaluationContext) -> dg.SkipReason:
    target = os.environ.get(TEXTFILE_ENV)
    if not target:
        return dg.SkipReason(f"{TEXTFILE_ENV} is not set")
    samples = collect(context.instance)
    write_textfile(target, render(samples))
    return dg.SkipReason(f"wrote {len(samples)} samples to {target}")


def prometheus_textfile_sensor() -> dg.SensorDefinition:
    """The sensor, running by default when GRAPHFEED_PROMETHEUS_TEXTFILE is set (read when the definitions are built)."""
    return dg.sensor(
        name="prometheus_textfile",
        minimum_interval_seconds=300,
        default_status=dg.DefaultSensorStatus.RUNNING
        if os.environ.get(TEXTFILE_ENV)
        else dg.DefaultSensorStatus.STOPPED,
        description="Writes the latest per-source figures to $GRAPHFEED_PROMETHEUS_TEXTFILE (node_exporter).",
    )(prometheus_textfile)
