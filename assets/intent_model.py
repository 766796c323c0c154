"""The trained intent classifier as an asset: lineage shows it upstream of every episodes asset, and its code version
(training code + training data hash) changes when either changes, so the UI marks episodes stale after a retrain."""

import dagster as dg

from pipelines.resources import HomeResource, IntentModelResource
from transforms.intent import CODE_VERSION, DEFAULT_TAXONOMY, DEFAULT_TRAIN, data_version

INTENT_MODEL_KEY = dg.AssetKey(["models", "intent_classifier"])


@dg.asset(
    key=INTENT_MODEL_KEY,
    group_name="models",
    code_version=f"{CODE_VERSION}-{data_version(DEFAULT_TRAIN, DEFAULT_TAXONOMY)[:12]}",
    kinds={"spacy"},
    description="spaCy intent classifier trained (seeded, reproducible) from the labelled JSONL in data/intent/.",
)
def intent_classifier(context: dg.AssetExecutionContext, home: HomeResource,
                      intent_model: IntentModelResource) -> dg.MaterializeResult:
    path = intent_model.ensure(home.root)
    classifier = intent_model.classifier(home.root)
    return dg.MaterializeResult(metadata={
        "path": dg.MetadataValue.path(str(path)),
        "labels": len(classifier.labels),
        "taxonomy": ", ".join(classifier.labels),
    })
