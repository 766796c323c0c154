"""Every name graphfeed takes from Dagster's private modules (`dagster._...`), in one place.

Dagster does not export these publicly (as of 1.13). Keeping them here means a Dagster upgrade that moves one breaks
this module only, and the list below says why each is needed:

- ASSET_PARTITION_RANGE_START_TAG / ASSET_PARTITION_RANGE_END_TAG: the run tags that make a job run a partition
  *range* as one run (single-run backfill policy). `graphfeed run --from A --to B` sets them on an in-process run
  (`execute_in_process` takes no range argument), and the sample tests do the same.
- DagsterEventType: to ask the instance for a run's ASSET_CHECK_EVALUATION log entries (the failed checks listed in a
  run-failure alert) and, in tests, to read a run's events by type.
- AssetCheckExecutionRecordStatus: the status of an asset check execution record (PLANNED / SUCCEEDED / FAILED), which
  the check-failure sensor pages through; the public API has no check-execution history with statuses.
- InstanceRef, RunLauncher, ConfigurableClassData, dagster_instance_config: only the deployment tests, which validate
  dagster.yaml / the Helm values the way the Dagster daemon loads them (instance config schema, run launcher class).
- ConcurrencySlotsTable, ConcurrencySlotStatus: pipelines/pool_claims.py, which replaces Dagster's racy slot claim on
  PostgreSQL with one transaction.
"""

from dagster._core.events import DagsterEventType
from dagster._core.instance.config import dagster_instance_config
from dagster._core.instance.ref import InstanceRef
from dagster._core.launcher import RunLauncher
from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionRecordStatus
from dagster._core.storage.event_log.schema import ConcurrencySlotsTable
from dagster._core.storage.tags import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG
from dagster._serdes import ConfigurableClassData
from dagster._utils.concurrency import ConcurrencySlotStatus

__all__ = [
    "ASSET_PARTITION_RANGE_END_TAG",
    "ASSET_PARTITION_RANGE_START_TAG",
    "AssetCheckExecutionRecordStatus",
    "ConcurrencySlotStatus",
    "ConcurrencySlotsTable",
    "ConfigurableClassData",
    "DagsterEventType",
    "InstanceRef",
    "RunLauncher",
    "dagster_instance_config",
]
