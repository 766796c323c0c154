"""Re-export of ground/episode.py, where the Episode now lives (issue 30), for the modules other branches still edit
(flow/ingest.py, pipelines/commands/, bench/, connectors/graph/to_graphiti.py). Import from ground.episode; this
module goes once those imports are moved."""

from ground.episode import EPISODE_NAMESPACE, Episode, EpisodeMetadata, episode_id

__all__ = ["EPISODE_NAMESPACE", "Episode", "EpisodeMetadata", "episode_id"]
