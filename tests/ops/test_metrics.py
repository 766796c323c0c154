"""Given a night materialised into a real instance, when the Prometheus export runs, then the textfile holds the
per-source figures in the exposition format node_exporter's textfile collector reads."""

import re

import dagster as dg
import pytest

from assets.intent_model import build_intent_classifier
from assets.source_chain import build_source_chain
from pipelines.metrics import Sample, collect, prometheus_textfile, render, write_textfile
from tests.ops.conftest import chain_resources

DAY = "2026-03-02"
intent_classifier = build_intent_classifier()
LINE = re.compile(
    r'^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)\{(?P<labels>(?:[a-zA-Z_]\w*="(?:[^"\\]|\\.)*",?)*)\} '
    r"(?P<value>-?[0-9.eE+-]+|NaN|[+-]Inf)$"
)


def parse(text: str) -> dict[tuple[str, tuple], float]:
    """A strict reader of what we write: every sample line parses, every metric has HELP and TYPE before it."""
    declared, samples = set(), {}
    for line in text.splitlines():
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            _, kind, name, rest = line.split(" ", 3)
            declared.add((name, rest if kind == "TYPE" else "help"))
            continue
        m = LINE.match(line)
        assert m, f"not exposition format: {line!r}"
        name = m["name"]
        assert (name, "gauge") in declared and (name, "help") in declared, f"{name} lacks HELP/TYPE"
        labels = tuple(sorted(re.findall(r'([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"', m["labels"])))
        samples[(name, labels)] = float(m["value"])
    return samples


@pytest.fixture(scope="module")
def metrics_instance(tmp_path_factory):
    home = tmp_path_factory.mktemp("metrics_dagster_home")
    with dg.instance_for_test(temp_dir=str(home)) as inst:
        yield inst


@pytest.fixture(scope="module")
def night(metrics_instance, tmp_path_factory, ops_model_cache):
    """One night materialised once for the module (the figures are read-only below)."""
    result = dg.materialize(
        [intent_classifier, *build_source_chain("email")],
        instance=metrics_instance,
        partition_key=DAY,
        selection=dg.AssetSelection.groups("email"),
        resources=chain_resources(tmp_path_factory.mktemp("metrics_home"), ops_model_cache),
    )
    assert result.success
    return result


@pytest.fixture
def instance(metrics_instance):
    return metrics_instance


def test_the_nights_figures_are_exported_per_source_and_intent(instance, night):
    eps = {k: v.value for k, v in night.asset_materializations_for_node("email__episodes")[0].metadata.items()}
    samples = parse(render(collect(instance, DAY)))
    src = (("source", "email"),)
    assert samples[("graphfeed_episodes", src)] == eps["episodes"]
    assert samples[("graphfeed_dedup_rate", src)] == pytest.approx(eps["dedup_rate"])
    assert samples[("graphfeed_duplicates", src)] == eps["duplicates"] > 0
    assert ("graphfeed_read_failures", src) in samples and ("graphfeed_llm_cost_usd", src) in samples
    assert ("graphfeed_seconds_per_episode_p95", src) in samples
    intents = {
        dict(labels)["intent"]: v for (name, labels), v in samples.items() if name == "graphfeed_episodes_by_intent"
    }
    assert intents == {k.split("/", 1)[1]: v for k, v in eps.items() if k.startswith("intent/")}
    assert sum(intents.values()) == eps["episodes"]


def test_a_partition_never_materialised_exports_nothing(instance, night):
    assert collect(instance, "2026-01-05") == []


def test_label_values_are_escaped_and_names_checked():
    text = render([Sample(name="graphfeed_x", labels={"source": 'a"b\\c\nd'}, value=1.5, help="h")])
    assert 'graphfeed_x{source="a\\"b\\\\c\\nd"} 1.5' in text
    assert parse(text)
    with pytest.raises(ValueError, match="not a Prometheus metric name"):
        render([Sample(name="graphfeed-x", labels={}, value=1, help="h")])


def test_the_sensor_writes_the_textfile_atomically(instance, night, tmp_path, monkeypatch):
    target = tmp_path / "textfile" / "graphfeed.prom"
    monkeypatch.setenv("GRAPHFEED_PROMETHEUS_TEXTFILE", str(target))
    write_textfile(target, "stale\n")
    prometheus_textfile(dg.build_sensor_context(instance=instance))
    text = target.read_text()
    assert "stale" not in text and parse(text)[("graphfeed_ingested", (("source", "email"),))] >= 0
    assert [p.name for p in target.parent.iterdir()] == ["graphfeed.prom"]  # no temp file left behind
