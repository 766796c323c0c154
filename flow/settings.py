"""Environment-driven settings shared by the Dagster resources and the CLI.

Only non-secret knobs live here (paths, thresholds). Secrets are read through dagster.EnvVar in resources and never
copied into logs or metadata.
"""

import os
from pathlib import Path

from connectors.registry import SOURCE_NAMES

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_EXPORTS = REPO_ROOT / "sample" / "exports"
SOURCES = SOURCE_NAMES  # the registry is the one list of sources

DEFAULT_START_DATE = "2026-01-01"


def home() -> Path:
    """Where graphfeed keeps its state: staging, models, ledger, embedded graph. GRAPHFEED_HOME, else ./.graphfeed."""
    return Path(os.environ.get("GRAPHFEED_HOME") or (Path.cwd() / ".graphfeed")).resolve()


def exports_dir() -> Path:
    """Root of the export folders (<root>/<source>/...). Defaults to the bundled sample company."""
    return Path(os.environ.get("GRAPHFEED_EXPORTS_DIR") or SAMPLE_EXPORTS)


def export_env_name(source: str) -> str:
    return f"GRAPHFEED_{source.upper()}_EXPORTS"


def export_paths(source: str) -> list[str]:
    """GRAPHFEED_<SOURCE>_EXPORTS (os.pathsep-separated files/folders) or <exports dir>/<source>."""
    explicit = os.environ.get(export_env_name(source))
    if explicit:
        return [p for p in explicit.split(os.pathsep) if p]
    return [str(exports_dir() / source)]


SAMPLE_DOMAIN_ORGS = "northwind.example=Northwind Analytics,acme.example=Acme Corp"  # the sample company's employers


def reads_bundled_sample() -> bool:
    """No export location of your own is set: every source reads the bundled sample company."""
    names = ["GRAPHFEED_EXPORTS_DIR", *(export_env_name(source) for source in SOURCES)]
    return not any(os.environ.get(name) for name in names)


def domain_orgs() -> str:
    """GRAPHFEED_DOMAIN_ORGS; unset, the sample company's map while the sample is read, else none (a company's own
    data never inherits the sample's employers: its organisations are named by their mail domain until configured)."""
    explicit = os.environ.get("GRAPHFEED_DOMAIN_ORGS")
    if explicit is not None:
        return explicit
    return SAMPLE_DOMAIN_ORGS if reads_bundled_sample() else ""


def start_date() -> str:
    return os.environ.get("GRAPHFEED_START_DATE", DEFAULT_START_DATE)


def env_float(name: str, default: float | None) -> float | None:
    raw = os.environ.get(name)
    return float(raw) if raw not in (None, "") else default


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return int(raw) if raw not in (None, "") else default


def env_list(name: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]
