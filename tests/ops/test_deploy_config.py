"""Given the Kubernetes deployment files (deploy/), when Dagster and dagster-k8s load them, then the instance validates,
the K8sRunLauncher builds a run-worker Job with our secrets, volumes and resources, and the Helm values say the same
as the instance file. Also: every environment variable the code reads is documented."""

import re
import shutil
from pathlib import Path

import dagster as dg
import pytest
import yaml

from flow.settings import REPO_ROOT

DEPLOY = REPO_ROOT / "deploy"
INSTANCE_YAML = DEPLOY / "k8s" / "dagster-instance.yaml"
HELM_VALUES = DEPLOY / "helm" / "dagster-values.yaml"
PG_ENV = {
    "DAGSTER_PG_HOST": "pg",
    "DAGSTER_PG_PORT": "5432",
    "DAGSTER_PG_USER": "dagster",
    "DAGSTER_PG_PASSWORD": "unused",
    "DAGSTER_PG_DB": "dagster",
}
KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: test, user: {token: "unused"}}]
contexts: [{name: test, context: {cluster: test, user: test, namespace: graphfeed}}]
current-context: test
"""


@pytest.fixture
def instance_dir(tmp_path, monkeypatch) -> Path:
    for name, value in PG_ENV.items():
        monkeypatch.setenv(name, value)
    shutil.copyfile(INSTANCE_YAML, tmp_path / "dagster.yaml")
    return tmp_path


@pytest.fixture
def launcher(instance_dir, tmp_path):
    """The K8sRunLauncher from the instance file, as dagster builds it — outside a cluster only the kube config
    source differs (a kubeconfig for 127.0.0.1 instead of the in-cluster service account; nothing is contacted)."""
    from pipelines.dagster_private import ConfigurableClassData, InstanceRef, RunLauncher

    data = InstanceRef.from_dir(str(instance_dir)).run_launcher_data
    assert (data.module_name, data.class_name) == ("dagster_k8s", "K8sRunLauncher")
    config = yaml.safe_load(data.config_yaml)
    assert config["load_incluster_config"] is True
    (tmp_path / "kubeconfig").write_text(KUBECONFIG)
    config.update(load_incluster_config=False, kubeconfig_file=str(tmp_path / "kubeconfig"))
    return ConfigurableClassData(data.module_name, data.class_name, yaml.safe_dump(config)).rehydrate(
        as_type=RunLauncher
    )


def test_the_instance_file_validates_against_dagsters_schema(instance_dir):
    from pipelines.dagster_private import dagster_instance_config

    config, _ = dagster_instance_config(str(instance_dir))
    assert config["storage"]["postgres"]["postgres_db"]["hostname"] == {"env": "DAGSTER_PG_HOST"}
    assert config["run_coordinator"]["class"] == "QueuedRunCoordinator"
    assert config["concurrency"]["pools"] == {"default_limit": 1, "granularity": "op"}
    assert "max_concurrent_runs" not in config["run_coordinator"]["config"]  # limits only under concurrency


def test_the_launcher_builds_a_run_worker_job_with_secrets_volumes_and_resources(launcher):
    import kubernetes
    from dagster_k8s.job import construct_dagster_k8s_job, get_job_name_from_run_id

    run = dg.DagsterRun(
        job_name="email_ingest", run_id="0123abcd-0000-4000-8000-000000000000", tags={"source": "email"}
    )
    context = launcher.get_container_context_for_run(run)
    job_config = context.get_k8s_job_config(job_image="registry.example.com/graphfeed:0.1.0", run_launcher=launcher)
    job = construct_dagster_k8s_job(
        job_config,
        args=["dagster", "api", "execute_run", "{}"],
        job_name=get_job_name_from_run_id(run.run_id),
        user_defined_k8s_config=context.run_k8s_config,
        component="run_worker",
    )
    manifest = kubernetes.client.ApiClient().sanitize_for_serialization(job)
    pod = manifest["spec"]["template"]["spec"]
    [container] = pod["containers"]
    assert manifest["metadata"]["name"] == "dagster-run-0123abcd-0000-4000-8000-000000000000"
    assert {"configMapRef": {"name": "graphfeed-config"}} in container["envFrom"]
    assert {"secretRef": {"name": "graphfeed-secrets"}} in container["envFrom"]
    password = next(e for e in container["env"] if e["name"] == "DAGSTER_PG_PASSWORD")
    assert password["valueFrom"]["secretKeyRef"] == {"name": "dagster-postgresql-secret", "key": "postgresql-password"}
    assert container["resources"] == {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "4Gi"}}
    assert {"mountPath": "/var/lib/graphfeed", "name": "graphfeed-home"} in container["volumeMounts"]
    assert pod["volumes"] == [{"name": "graphfeed-home", "persistentVolumeClaim": {"claimName": "graphfeed-home"}}]
    assert pod["securityContext"] == {"runAsUser": 10001, "fsGroup": 10001}
    assert manifest["spec"]["backoffLimit"] == 0 and pod["restartPolicy"] == "Never"


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_the_helm_values_say_what_the_instance_file_says():
    values = yaml.safe_load(HELM_VALUES.read_text())
    instance = yaml.safe_load(INSTANCE_YAML.read_text())
    k8s = values["runLauncher"]["config"]["k8sRunLauncher"]
    launcher = instance["run_launcher"]["config"]
    assert values["runLauncher"]["type"] == "K8sRunLauncher"
    assert [m["name"] for m in k8s["envConfigMaps"]] == launcher["env_config_maps"]
    assert [s["name"] for s in k8s["envSecrets"]] == launcher["env_secrets"]
    assert k8s["volumes"] == launcher["volumes"] and k8s["volumeMounts"] == launcher["volume_mounts"]
    assert k8s["runK8sConfig"]["containerConfig"] == launcher["run_k8s_config"]["container_config"]
    assert {_snake(k): v for k, v in k8s["runK8sConfig"]["jobSpecConfig"].items()} == launcher["run_k8s_config"][
        "job_spec_config"
    ]

    helm_limits, limits = values["concurrency"], instance["concurrency"]
    assert helm_limits["enabled"] is True
    assert helm_limits["runs"]["maxConcurrentRuns"] == limits["runs"]["max_concurrent_runs"]
    assert helm_limits["runs"]["tagConcurrencyLimits"] == limits["runs"]["tag_concurrency_limits"]
    assert {_snake(k): v for k, v in helm_limits["pools"].items()} == limits["pools"]
    assert "maxConcurrentRuns" not in values["dagsterDaemon"]["runCoordinator"]["config"]["queuedRunCoordinator"]

    daemon = values["dagsterDaemon"]
    assert daemon["runRetries"]["maxRetries"] == instance["run_retries"]["max_retries"]
    assert daemon["runMonitoring"]["maxResumeRunAttempts"] == instance["run_monitoring"]["max_resume_run_attempts"]


def test_the_run_k8s_config_of_the_helm_values_is_accepted_by_dagster_k8s():
    from dagster_k8s.job import UserDefinedDagsterK8sConfig

    run_config = yaml.safe_load(HELM_VALUES.read_text())["runLauncher"]["config"]["k8sRunLauncher"]["runK8sConfig"]
    parsed = UserDefinedDagsterK8sConfig.from_dict({_snake(k): v for k, v in run_config.items()})
    assert parsed.container_config["resources"]["limits"] == {"memory": "4Gi"}


def test_the_code_location_the_user_deployment_serves_loads():
    values = yaml.safe_load(HELM_VALUES.read_text())
    [deployment] = values["dagster-user-deployments"]["deployments"]
    assert deployment["dagsterApiGrpcArgs"] == ["-m", "pipelines.definitions"]
    import importlib

    module = importlib.import_module(deployment["dagsterApiGrpcArgs"][1])
    assert isinstance(module.defs, dg.Definitions)
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert '"-m", "pipelines.definitions"' in dockerfile and "dagster-k8s==0.29.27" in dockerfile


def _env_names_read_by_code() -> set[str]:
    """Every GRAPHFEED_/NEO4J_/FALKORDB_/DAGSTER_ name spelled out in pipelines/ (resources, sensors, commands...),
    assets/, flow/ (settings) and in the LLM settings (read straight from the environment)."""
    pattern = re.compile(r'"((?:GRAPHFEED|NEO4J|FALKORDB|DAGSTER)_[A-Z0-9_]+)"')
    files = [
        *(p for d in ("pipelines", "assets", "flow") for p in (REPO_ROOT / d).rglob("*.py")),
        REPO_ROOT / "graph" / "llm" / "settings.py",
    ]
    from connectors.registry import specs

    derived = {s.settings.env_name(field) for s in specs().values() for field in s.settings.model_fields}
    return derived | {name for path in files for name in pattern.findall(path.read_text())}


def test_every_environment_variable_is_in_the_configuration_reference():
    reference = (REPO_ROOT / "docs" / "configuration.md").read_text()
    names = _env_names_read_by_code()
    assert {"GRAPHFEED_HOME", "NEO4J_PASSWORD", "GRAPHFEED_ALERT_CHANNEL"} <= names
    missing = sorted(n for n in names if f"`{n}`" not in reference)
    assert not missing, f"docs/configuration.md does not document: {missing}"
    for name in yaml.safe_load((DEPLOY / "k8s" / "graphfeed-config.yaml").read_text())["data"]:
        assert f"`{name}`" in reference, f"deploy/k8s/graphfeed-config.yaml sets undocumented {name}"


def test_the_image_copies_every_package_the_project_installs():
    """Given pyproject's package list, when the Dockerfile is read, then each top-level package is copied into the
    image (ground/ was once missing: the image could not import a single connector)."""
    import tomllib

    include = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    packages = {pattern.rstrip("*") for pattern in include["include"]}
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert packages and all(f"COPY {p} ./{p}" in dockerfile for p in packages), sorted(packages)


def _documented_default(value: object) -> str:
    if value in (None, "", [], {}):
        return "–"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    return f"`{value}`"


def test_every_source_setting_is_documented_with_its_variable_and_default():
    """Given each registered source's settings (declared once in its spec, its variable derived from its name), when
    the configuration reference is read, then each has a row naming its variable, `<source>_<field>` and its default,
    and a secret (SecretStr) says so."""
    from pydantic import SecretStr

    from connectors.registry import specs

    reference = (REPO_ROOT / "docs" / "configuration.md").read_text()
    rows = {}
    for line in reference.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[1].startswith("`"):
            rows[cells[1].strip("`")] = cells
    wrong, fields = [], 0
    for source, spec in specs().items():
        for name, info in spec.settings.model_fields.items():
            field, env, fields = f"{source}_{name}", spec.settings.env_name(name), fields + 1
            row = rows.get(field)
            default = _documented_default(info.default)  # may be followed by its meaning: "– (the pipeline's group)"
            secret = SecretStr in getattr(info.annotation, "__args__", (info.annotation,))
            if (
                row is None
                or row[0] != f"`{env}`"
                or not (row[2] == default or row[2].startswith(default + " ("))
                or secret != ("**secret**" in row[3])
            ):
                wrong.append((field, env, default, row[:4] if row else None))
    assert fields > 30 and not wrong, wrong
