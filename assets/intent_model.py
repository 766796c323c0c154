"""The trained intent classifier as an asset: lineage shows it upstream of every episodes asset, and its code version
(training code + training data hash) changes when either changes, so the UI marks episodes stale after a retrain."""

import os

import dagster as dg

from assets.resources import HomeResource, IntentModelResource
from transforms.intent import shipped

INTENT_MODEL_KEY = dg.AssetKey(["models", "intent_classifier"])


def build_intent_classifier() -> dg.AssetsDefinition:
    """The model asset; its code version hashes the training data GRAPHFEED_INTENT_TRAIN / _TAXONOMY name (read now)."""

    @dg.asset(
        key=INTENT_MODEL_KEY,
        group_name="models",
        code_version=shipped.version(
            os.environ.get("GRAPHFEED_INTENT_TRAIN") or None, os.environ.get("GRAPHFEED_INTENT_TAXONOMY") or None
        ),
        kinds={"numpy"},
        description="Intent classifier (linear head over MiniLM + cue lexicon) trained reproducibly at run time "
        "from the labelled units in data/intent/ (train split).",
    )
    def intent_classifier(
        context: dg.AssetExecutionContext, home: HomeResource, intent_model: IntentModelResource
    ) -> dg.MaterializeResult:
        path = intent_model.ensure(home.root)
        classifier = intent_model.classifier(home.root)
        return dg.MaterializeResult(
            metadata={
                "path": dg.MetadataValue.path(str(path)),
                "labels": len(classifier.labels),
                "taxonomy": ", ".join(classifier.labels),
            }
        )

    return intent_classifier
