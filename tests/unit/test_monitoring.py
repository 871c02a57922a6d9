"""The alerting rules and the dashboard in deploy/monitoring (docs/operations.md): valid
for Prometheus (promtool, from Debian's prometheus package, when installed: it checks
the rules and fires each alert on made-up series), covering what matters, and naming
only metrics the services export."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest
import yaml

ROOT = Path(__file__).parent.parent.parent
MONITORING = ROOT / "deploy" / "monitoring"
METRIC = re.compile(r"\b(raffe_[a-z_]+)")


def exported_metrics() -> set[str]:
    """Every metric name the code declares (Counter/Gauge/Histogram("raffe_…"))."""
    names: set[str] = set()
    for folder in ("services", "gateway"):
        for path in (ROOT / folder).rglob("*.py"):
            names |= set(re.findall(r'"(raffe_[a-z_]+)"', path.read_text()))
    return names


def series(expr: str) -> set[str]:
    """The metrics an expression reads (a histogram's _bucket/_count/_sum is its own)."""
    return {re.sub(r"_(bucket|count|sum)$", "", m) for m in METRIC.findall(expr)}


def rules() -> list[dict[str, object]]:
    doc = yaml.safe_load((MONITORING / "alerts.yaml").read_text())
    return [r for group in doc["groups"] for r in group["rules"]]


def test_the_alerts_cover_what_matters_and_read_real_metrics() -> None:
    found = {str(r["alert"]) for r in rules()}
    assert {
        "RaffeErrorRate",
        "RaffePushLatencyHigh",
        "RaffeProjectionLag",
        "RaffeRedisMemoryNearLimit",
        "RaffeRedisUnreachable",
    } <= found
    exported = exported_metrics()
    for rule in rules():
        assert rule["labels"]["severity"] in ("page", "ticket"), rule
        assert rule["annotations"]["summary"], rule
        assert series(str(rule["expr"])) <= exported, rule["alert"]


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool (Debian: prometheus)")
def test_promtool_accepts_the_rules_and_each_alert_fires_on_its_series() -> None:
    for command in (["check", "rules", "alerts.yaml"], ["test", "rules", "alerts_test.yaml"]):
        done = subprocess.run(
            ["promtool", *command], cwd=MONITORING, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_dashboard_is_grafana_json_over_real_metrics() -> None:
    board = orjson.loads((MONITORING / "dashboard.json").read_bytes())
    assert board["uid"] and board["title"] and board["schemaVersion"] >= 30
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids)) >= 6
    exported = exported_metrics()
    for panel in board["panels"]:
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            assert series(target["expr"]) <= exported, (panel["title"], target["expr"])
    variables = {v["name"] for v in board["templating"]["list"]}
    assert "datasource" in variables


def test_a_dead_process_of_every_service_is_seen() -> None:
    """#55 item 4: min(raffe_ready) sees only live series; a process that died exports
    none. Every Deployment has a target-down rule under the job name the scrape
    configuration gives its pods (promtool fires them in alerts_test.yaml)."""
    base = ROOT / "deploy" / "k8s" / "base"
    deployments = {
        doc["metadata"]["name"]
        for path in base.glob("*.yaml")
        for doc in yaml.safe_load_all(path.read_text())
        if doc and doc.get("kind") == "Deployment"
    }
    absent = {
        rule["labels"]["job"]
        for rule in rules()
        if rule["alert"] == "RaffeProcessAbsent"
        and f'absent(up{{job="{rule["labels"]["job"]}"}} == 1)' in str(rule["expr"])
    }
    assert deployments and deployments <= absent, deployments - absent
    down = next(r for r in rules() if r["alert"] == "RaffeTargetDown")
    assert str(down["expr"]).strip() == 'up{job=~"raffe-.+"} == 0'
    scrape = yaml.safe_load((MONITORING / "prometheus.yaml").read_text())
    relabel = scrape["scrape_configs"][0]["relabel_configs"]
    job = next(r for r in relabel if r.get("target_label") == "job")
    assert job["source_labels"] == ["__meta_kubernetes_pod_label_app_kubernetes_io_name"]
    assert scrape["rule_files"] == ["alerts.yaml"]


def test_operator_users_get_the_same_rules_and_a_pod_monitor_of_every_service() -> None:
    """#55 item 5: the PrometheusRule is alerts.yaml's groups (generated, never stale);
    the PodMonitor selects every Raffe Deployment's pods, scrapes the port each names
    metrics, and names the job as prometheus.yaml does (the target-down rules rely on
    it)."""
    from deploy import prometheus_rule

    assert prometheus_rule.main(["--check"]) == 0, "run make manifests"
    generated = yaml.safe_load(prometheus_rule.OUTPUT.read_text())
    assert generated["kind"] == "PrometheusRule"
    assert (
        generated["spec"]["groups"]
        == yaml.safe_load((MONITORING / "alerts.yaml").read_text())["groups"]
    )
    monitor = yaml.safe_load((MONITORING / "operator" / "pod-monitor.yaml").read_text())
    assert monitor["spec"]["jobLabel"] == "app.kubernetes.io/name"
    (endpoint,) = monitor["spec"]["podMetricsEndpoints"]
    selector = monitor["spec"]["selector"]["matchLabels"]
    base = ROOT / "deploy" / "k8s" / "base"
    deployments = [
        doc
        for path in base.glob("*.yaml")
        for doc in yaml.safe_load_all(path.read_text())
        if doc and doc.get("kind") == "Deployment"
    ]
    assert len(deployments) >= 7
    for deployment in deployments:
        pod = deployment["spec"]["template"]
        assert selector.items() <= pod["metadata"]["labels"].items(), deployment["metadata"]
        ports = {p["name"] for c in pod["spec"]["containers"] for p in c.get("ports", [])}
        assert endpoint["port"] in ports, deployment["metadata"]["name"]
