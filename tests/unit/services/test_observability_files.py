"""infra/observability stays in step with the metrics the code exports: the Grafana dashboard is
valid JSON naming only exported metrics and their labels, and Prometheus scrapes what the
Kubernetes pods announce."""

import json
import re
from pathlib import Path

import pytest
import yaml
from prometheus_client import REGISTRY

import services.live.fanout  # noqa: F401  (imported for the metrics it registers)
import services.live.redis  # noqa: F401
import services.observability  # noqa: F401

ROOT = Path(__file__).resolve().parents[3]
OBSERVABILITY = ROOT / "infra" / "observability"
RELABELLED = {"pod", "component", "namespace", "job", "instance"}
"""Labels Prometheus adds when it scrapes (prometheus.yml), not the code."""

SUFFIXES = {"counter": ["_total"], "histogram": ["_bucket", "_sum", "_count"], "gauge": [""],
            "summary": ["", "_sum", "_count"], "info": ["_info"]}


def _exported() -> dict[str, set[str]]:
    """Every series name the process exports, with the labels the code gives it."""
    names: dict[str, set[str]] = {}
    for family in REGISTRY.collect():
        labels = set(getattr(REGISTRY._names_to_collectors.get(family.name), "_labelnames", ()))
        for sample in family.samples:
            labels |= set(sample.labels)
        for suffix in SUFFIXES.get(family.type, [""]):
            names[family.name + suffix] = labels | ({"le"} if suffix == "_bucket" else set())
    return names


def _dashboard() -> dict:
    return json.loads((OBSERVABILITY / "grafana-dashboard.json").read_text())


def _expressions() -> list[str]:
    return [t["expr"] for p in _dashboard()["panels"] for t in p["targets"]]


def test_the_dashboard_is_valid_json_with_unique_panels_on_the_chosen_data_source() -> None:
    dashboard = _dashboard()
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
        assert panel["targets"], panel["title"]


def test_the_dashboard_names_only_metrics_the_code_exports() -> None:
    exported = _exported()
    for expr in _expressions():
        for name in re.findall(r"\b((?:qipai|process|python)_[a-z0-9_]+)", expr):
            assert name in exported, (name, expr)


def test_the_dashboard_filters_and_groups_only_by_labels_the_metrics_have() -> None:
    exported = _exported()
    for expr in _expressions():
        for name, selector in re.findall(r"\b((?:qipai|process)_[a-z0-9_]+)\{([^}]*)\}", expr):
            keys = set(re.findall(r"(\w+)\s*(?:=~|!~|!=|=)", selector))
            assert keys <= exported[name] | RELABELLED, (name, keys)
        metrics = set(re.findall(r"\b((?:qipai|process)_[a-z0-9_]+)", expr))
        for grouped in re.findall(r"by \(([^)]*)\)", expr):
            keys = {k.strip() for k in grouped.split(",")}
            allowed = set().union(*(exported[m] for m in metrics)) | RELABELLED
            assert keys <= allowed, (keys, expr)


@pytest.mark.parametrize("metric", [
    "qipai_commands_total", "qipai_command_seconds_bucket", "qipai_appends_total",
    "qipai_leases_total", "qipai_fanout_lag_seconds_bucket", "qipai_live_tables",
    "qipai_room_join_failures_total",
])
def test_the_dashboard_shows_each_metric_the_service_exports(metric: str) -> None:
    assert any(metric in expr for expr in _expressions())


def test_prometheus_scrapes_the_pods_on_the_port_and_path_they_announce() -> None:
    config = yaml.safe_load((OBSERVABILITY / "prometheus.yml").read_text())
    pod = yaml.safe_load((ROOT / "infra" / "k8s" / "base" / "pod.yaml").read_text())
    settings = yaml.safe_load((ROOT / "infra" / "k8s" / "base" / "config.yaml").read_text())["data"]
    annotations = pod["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == settings["QIPAI_METRICS_PORT"]
    (job,) = [j for j in config["scrape_configs"] if "kubernetes_sd_configs" in j]
    sources = {s for rule in job["relabel_configs"] for s in rule["source_labels"]}
    for annotation in ("scrape", "port", "path"):
        assert f"__meta_kubernetes_pod_annotation_prometheus_io_{annotation}" in sources
