"""deploy/: the image and the Kubernetes manifests, checked without a cluster.

Every overlay renders with `kubectl kustomize`, every object validates against the
Kubernetes OpenAPI schema, every workload has probes, requests, limits and a non-root,
read-only security context, every setting a service reads has a value, and images and
ports agree with the services' own settings."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from deploy import manifests
from gateway.settings import GatewaySettings
from services.core.settings import ServiceSettings, env_names
from services.games import GAMES
from services.launcher import SERVICES
from services.targets import TOURNAMENT_PORT, default_ports, engine_targets

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
TARGETS = ["base", "overlays/local", "overlays/production", "overlays/replicated"]
K8S_VERSION = "1.32"
# Settings only the local launcher, the local redis helpers or the `raffe` CLI read.
LOCAL_ONLY = {"RAFFE_APPENDFSYNC", "RAFFE_REDIS_SERVER", "RAFFE_REDIS_CLI", "RAFFE_URL"}

needs_kubectl = pytest.mark.skipif(
    shutil.which("kubectl") is None and not os.environ.get("CI"),
    reason="kubectl is not installed (CI installs it)",
)


def render(target: str) -> list[dict[str, Any]]:
    out = subprocess.run(
        ["kubectl", "kustomize", str(K8S / target)], capture_output=True, text=True, check=True
    ).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


def workloads(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] in ("Deployment", "StatefulSet")]


def env_of(container: dict[str, Any], objects: list[dict[str, Any]]) -> dict[str, str]:
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        name = source["configMapRef"]["name"]
        config = next(
            o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"] == name
        )
        env |= config["data"]
    for item in container.get("env", []):
        env[item["name"]] = item.get("value", "<from secret>")
    return env


def settings_read_by_code() -> set[str]:
    names: set[str] = set()
    for folder in ("services", "gateway"):
        for path in (ROOT / folder).rglob("*.py"):
            names |= set(re.findall(r"\b(RAFFE_[A-Z_]+)\b", path.read_text()))
    for settings in (ServiceSettings, GatewaySettings):
        names |= env_names(settings)
    return names - LOCAL_ONLY


@needs_kubectl
@pytest.mark.parametrize("target", TARGETS)
def test_every_object_renders_and_validates(target: str) -> None:
    objects = render(target)
    assert len(objects) > 10
    for obj in objects:
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)


def test_the_validator_rejects_a_broken_object() -> None:
    broken = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "x"},
        "spec": {"replicas": "two", "selector": {}, "template": {}},
    }
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, K8S_VERSION, strict=True)


@needs_kubectl
@pytest.mark.parametrize("target", TARGETS)
def test_every_workload_has_probes_resources_and_a_locked_down_context(target: str) -> None:
    for w in workloads(render(target)):
        pod = w["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, w["metadata"]["name"]
        for c in pod["containers"]:
            where = f"{w['metadata']['name']}/{c['name']}"
            assert "readinessProbe" in c and "livenessProbe" in c, where
            assert {"cpu", "memory"} <= set(c["resources"]["requests"]), where
            assert {"cpu", "memory"} <= set(c["resources"]["limits"]), where
            sc = c["securityContext"]
            assert sc["readOnlyRootFilesystem"] and not sc["allowPrivilegeEscalation"], where


@needs_kubectl
@pytest.mark.parametrize("target", TARGETS)
def test_readiness_checks_what_a_service_needs_and_liveness_does_not(target: str) -> None:
    """Readiness asks whether the service reaches Redis (and the gateway its engines):
    gRPC health ``raffe.ready`` or ``/readyz``; liveness only whether it answers, so a
    Redis outage takes pods out of their Services without restarting them all."""
    for w in workloads(render(target)):
        if "redis" in w["metadata"]["name"]:
            continue  # Redis itself: its own ping is both
        for c in w["spec"]["template"]["spec"]["containers"]:
            where = f"{w['metadata']['name']}/{c['name']}"
            ready, alive = c["readinessProbe"], c["livenessProbe"]
            asked = ready.get("grpc", {}).get("service") or ready.get("httpGet", {}).get("path")
            assert asked in ("raffe.ready", "/readyz"), where
            assert ready != alive and "raffe.ready" not in str(alive), where
            assert "/readyz" not in str(alive), where


@needs_kubectl
@pytest.mark.parametrize("target", TARGETS)
def test_every_setting_a_service_reads_has_a_value(target: str) -> None:
    objects = render(target)
    wanted = settings_read_by_code()
    for w in workloads(objects):
        if w["metadata"]["name"] == "raffe-redis":
            continue
        container = w["spec"]["template"]["spec"]["containers"][0]
        env = env_of(container, objects)
        assert not wanted - set(env), f"{w['metadata']['name']} lacks {wanted - set(env)}"


@needs_kubectl
@pytest.mark.parametrize("target", TARGETS)
def test_images_and_ports_agree_with_the_services(target: str) -> None:
    objects = render(target)
    ports = {tuple(s.argv[2:]): s.port for s in SERVICES}
    services = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Service"}
    images = set()
    for w in workloads(objects):
        if w["metadata"]["name"] == "raffe-redis":
            continue
        c = w["spec"]["template"]["spec"]["containers"][0]
        named = {p["name"]: p["containerPort"] for p in c["ports"]}
        main = named.get("main", named["metrics"])  # the bot runner serves only metrics
        assert main == ports[tuple(c["args"])] == int(env_of(c, objects)["RAFFE_PORT"]), c["args"]
        # Scraped by the port named metrics (PodMonitor) or by annotation (prometheus.yaml).
        annotations = w["spec"]["template"]["metadata"]["annotations"]
        metrics = int(env_of(c, objects)["RAFFE_METRICS_PORT"])
        assert named["metrics"] == metrics == int(annotations["prometheus.io/port"]), c["args"]
        images.add(c["image"])
        if w["metadata"]["name"] in services:
            assert services[w["metadata"]["name"]]["spec"]["ports"][0]["port"] == main
    assert len(images) == 1, images  # one image for every service
    config = next(
        o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"] == "raffe-config"
    )
    pattern = config["data"]["RAFFE_ENGINE_ADDRESS"]
    for name, port in default_ports().items():
        host, at = pattern.format(name=name, port=port).removeprefix("dns:///").split(":")
        assert services[host]["spec"].get("clusterIP") == "None", f"{host} must be headless"
        assert int(at) == services[host]["spec"]["ports"][0]["port"]


@needs_kubectl
@pytest.mark.parametrize("target", TARGETS)
def test_every_game_has_an_engine_scaled_by_the_overlay(target: str) -> None:
    objects = render(target)
    deployments = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Deployment"}
    scalers = {o["metadata"]["name"]: o for o in objects if o["kind"] == KIND_HPA}
    least = {"base": 2, "overlays/local": 1, "overlays/production": 4}.get(target, 2)
    for name in GAMES:
        engine = deployments[f"raffe-{name}"]
        assert engine["spec"]["template"]["spec"]["containers"][0]["args"][1] == name
        assert scalers[f"raffe-{name}"]["spec"]["minReplicas"] == least


KIND_HPA = "HorizontalPodAutoscaler"


@needs_kubectl
def test_production_serves_the_gateway_over_tls_with_streams_unbuffered() -> None:
    objects = render("overlays/production")
    ingresses = [o for o in objects if o["kind"] == "Ingress"]
    assert len(ingresses) == 2  # everything, and the tables hashed by their path
    for ingress in ingresses:
        tls = ingress["spec"]["tls"][0]
        hosts = {rule["host"] for rule in ingress["spec"]["rules"]}
        assert tls["secretName"] and set(tls["hosts"]) == hosts
        notes = ingress["metadata"]["annotations"]
        assert notes["nginx.ingress.kubernetes.io/proxy-buffering"] == "off"  # SSE frames flow
        assert int(notes["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 600
    assert any("cert-manager.io/cluster-issuer" in i["metadata"]["annotations"] for i in ingresses)
    services = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Service"}
    for ingress in ingresses:
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:  # every backend is a gateway Service
                service = services[path["backend"]["service"]["name"]]
                assert service["spec"]["selector"] == services["raffe-gateway"]["spec"]["selector"]
    assert not [o for o in render("overlays/local") if o["kind"] == "Ingress"]


def routed(ingresses: list[dict[str, Any]], path: str) -> tuple[str, str]:
    """The Service a request for ``path`` reaches and what its balancer hashes by ("":
    round robin): an Exact path first, then the longest Prefix, element by element, as
    Kubernetes defines the matching."""
    elements = [e for e in path.split("/") if e]
    best: tuple[int, str, str] | None = None
    for ingress in ingresses:
        hashed = ingress["metadata"]["annotations"].get(
            "nginx.ingress.kubernetes.io/upstream-hash-by", ""
        )
        for rule in ingress["spec"]["rules"]:
            for p in rule["http"]["paths"]:
                mine = [e for e in p["path"].split("/") if e]
                service = p["backend"]["service"]["name"]
                if p["pathType"] == "Exact" and mine == elements:
                    return service, hashed
                prefix = p["pathType"] == "Prefix" and elements[: len(mine)] == mine
                if prefix and (best is None or len(mine) > best[0]):
                    best = (len(mine), service, hashed)
    assert best is not None, path
    return best[1], best[2]


@needs_kubectl
def test_a_tables_streams_all_reach_one_gateway_and_the_rest_is_spread() -> None:
    """Decision 59: every live stream of a game (each seat's and spectator's: the seat is
    in the token or ticket, not the path) is hashed by the same path onto one gateway pod,
    so its moves are folded and framed once; what names no game is spread round robin."""
    ingresses = [o for o in render("overlays/production") if o["kind"] == "Ingress"]
    tables = routed(ingresses, "/v1/games/g-1/events/stream")
    assert tables == ("raffe-gateway-tables", "$uri")  # $uri: the path, not the query
    for path in ("/v1/games/g-1/commands", "/v1/games/g-1", "/v1/games/g-1/chat"):
        assert routed(ingresses, path) == tables
    for path in ("/v1/games", "/", "/v1/lobby", "/v1/accounts/me/events", "/v1/sessions"):
        assert routed(ingresses, path) == ("raffe-gateway", ""), path


@needs_kubectl
@pytest.mark.parametrize("target", TARGETS)
def test_autoscaled_workloads_leave_their_replica_count_to_the_autoscaler(target: str) -> None:
    """A Deployment's count would be put back on every apply, undoing the autoscaler's."""
    objects = render(target)
    scaled = {o["spec"]["scaleTargetRef"]["name"] for o in objects if o["kind"] == KIND_HPA}
    assert {"raffe-gateway", "raffe-bots"} <= scaled
    for o in objects:
        if o["kind"] == "Deployment" and o["metadata"]["name"] in scaled:
            assert "replicas" not in o["spec"], o["metadata"]["name"]


@needs_kubectl
@pytest.mark.parametrize("target", TARGETS)
def test_every_disruption_budget_allows_a_node_drain(target: str) -> None:
    """With the fewest pods a workload may run (its count, or its autoscaler's minimum),
    its budget still lets a drain evict one of them."""
    objects = render(target)
    least = {o["metadata"]["name"]: o["spec"].get("replicas", 1) for o in workloads(objects)}
    for o in objects:
        if o["kind"] == KIND_HPA:
            least[o["spec"]["scaleTargetRef"]["name"]] = o["spec"]["minReplicas"]
    for budget in (o for o in objects if o["kind"] == "PodDisruptionBudget"):
        name, spec = budget["metadata"]["name"], budget["spec"]
        if "maxUnavailable" in spec:
            assert int(spec["maxUnavailable"]) >= 1, name
        else:
            assert int(spec["minAvailable"]) < least[name], name


def admitted(policy: dict[str, Any], pod: dict[str, Any], port: dict[str, Any]) -> bool:
    """Whether some ingress rule of ``policy`` names this container port (by its name or
    its number) and the policy selects the pod by its component label."""
    component = pod["metadata"]["labels"].get("app.kubernetes.io/component")
    selector = policy["spec"]["podSelector"]["matchExpressions"][0]
    if component not in selector["values"]:
        return False
    named = {p["port"] for rule in policy["spec"]["ingress"] for p in rule.get("ports", [])}
    return port["name"] in named or port["containerPort"] in named


@needs_kubectl
@pytest.mark.parametrize("target", TARGETS)
def test_every_engine_is_reachable_through_the_network_policy(target: str) -> None:
    """Every game's engine, the tournament's and the projection take their clients and
    scrapes on every port they open, and so would a game added to the list: the policy
    names ports, not numbers (a new game's engine rendered here from the template)."""
    objects = render(target)
    policies = [o for o in objects if o["kind"] == "NetworkPolicy"]
    engines = next(p for p in policies if p["metadata"]["name"] == "raffe-engines")
    names = [*(f"raffe-{g}" for g in GAMES), "raffe-tournament", "raffe-projection"]
    pods = [o["spec"]["template"] for o in workloads(objects) if o["metadata"]["name"] in names]
    rendered = yaml.safe_load_all(manifests.render({"new-game": 50099}))
    new_game = next(d for d in rendered if d and d["kind"] == "Deployment")
    pods.append(new_game["spec"]["template"])
    assert len(pods) == len(names) + 1
    for pod in pods:
        for port in pod["spec"]["containers"][0]["ports"]:
            assert admitted(engines, pod, port), (pod["metadata"]["labels"], port)


def test_the_engine_manifests_are_generated_from_the_games() -> None:
    """deploy/k8s/base/engines.yaml is `make manifests` output for services/games.py."""
    assert manifests.OUTPUT.read_text() == manifests.render(), "run `make manifests`"
    names = [d["metadata"]["name"] for d in yaml.safe_load_all(manifests.render())]
    assert {f"raffe-{g}" for g in GAMES} <= set(names)


def test_engines_listen_where_the_launcher_and_clients_expect() -> None:
    ports = {s.engine: s.port for s in SERVICES if s.engine}
    assert ports == default_ports()
    assert engine_targets()["tournament"].endswith(f":{TOURNAMENT_PORT}")
    assert {g.default_port for g in GAMES.values()}.isdisjoint({TOURNAMENT_PORT})


def test_the_dockerfile_is_multi_stage_non_root_and_lints_clean() -> None:
    dockerfile = ROOT / "deploy" / "docker" / "Dockerfile"
    text = dockerfile.read_text()
    stages = re.findall(r"^FROM \S+ AS (\w+)", text, flags=re.MULTILINE)
    assert stages == ["build", "run"]
    final = text.split("AS run", 1)[1]
    assert re.search(r"^USER 10001", final, flags=re.MULTILINE)
    assert "grpc_tools.protoc" in text.split("AS run", 1)[0]  # protobuf generated in the build
    assert "grpcio-tools" not in final and "gcc" not in final
    assert (ROOT / ".dockerignore").exists()
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if Path(hadolint).exists():
        done = subprocess.run([hadolint, str(dockerfile)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout


@needs_kubectl
def test_production_trusts_its_ingress_and_scrapes_the_gateway_off_its_public_port() -> None:
    objects = render("overlays/production")
    gateway = next(w for w in workloads(objects) if w["metadata"]["name"] == "raffe-gateway")
    container = gateway["spec"]["template"]["spec"]["containers"][0]
    env = env_of(container, objects)
    assert env["RAFFE_TRUSTED_PROXIES"] and env["RAFFE_METRICS_PORT"] != env["RAFFE_PORT"]
    annotations = gateway["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == env["RAFFE_METRICS_PORT"]


@needs_kubectl
def test_redis_never_evicts_and_stays_below_its_container_limit() -> None:
    objects = render("overlays/local")
    conf = next(o for o in objects if o["metadata"]["name"] == "raffe-redis-config")
    lines = dict(
        line.split(" ", 1)
        for line in conf["data"]["redis.conf"].splitlines()
        if line and not line.startswith("#")
    )
    assert lines["maxmemory-policy"] == "noeviction"
    redis = next(w for w in workloads(objects) if w["metadata"]["name"] == "raffe-redis")
    limit = redis["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["memory"]
    assert int(lines["maxmemory"].removesuffix("mb")) < int(limit.removesuffix("Gi")) * 1024


def test_running_the_demo_or_rendering_manifests_installs_no_test_tools() -> None:
    """`make demo` and `make manifests` need what `make run` needs (the runtime and the
    protobuf generator), not the test and lint tools or npm."""
    text = (ROOT / "Makefile").read_text()
    for target in ("run", "demo", "manifests"):
        rule = re.search(rf"^{target}:(.*)$", text, re.M)
        assert rule is not None, target
        assert "$(STAMP)" not in rule.group(1), target
    generated = re.search(r"^\$\(GEN\):(.*)$", text, re.M)
    assert generated is not None and "$(RUN_STAMP)" in generated.group(1)


@needs_kubectl
def test_the_replicated_overlay_runs_redis_under_sentinel_on_three_nodes() -> None:
    """#29 item 1: three Redis pods, never two on a node, a sentinel beside each; the
    services name every sentinel and wait for one replica; a primary cut off from its
    replicas takes no writes; a drain moves one pod at a time; the start scripts parse."""
    objects = render("overlays/replicated")
    redis = next(o for o in workloads(objects) if o["metadata"]["name"] == "raffe-redis")
    pod = redis["spec"]["template"]["spec"]
    assert redis["spec"]["replicas"] == 3
    spread = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert spread[0]["topologyKey"] == "kubernetes.io/hostname"
    assert {c["name"] for c in pod["containers"]} == {"redis", "sentinel"}
    config = next(o for o in objects if o["metadata"]["name"] == "raffe-config")["data"]
    sentinels = config["RAFFE_REDIS_SENTINELS"].split(",")
    assert sentinels == [f"raffe-redis-{i}.raffe-redis:26379" for i in range(3)]
    assert config["RAFFE_REDIS_WAIT_REPLICAS"] == "1"
    redis_conf = next(o for o in objects if o["metadata"]["name"] == "raffe-redis-config")
    assert "min-replicas-to-write 1" in redis_conf["data"]["redis.conf"]
    service = next(
        o for o in objects if o["kind"] == "Service" and o["metadata"]["name"] == "raffe-redis"
    )
    assert service["spec"]["clusterIP"] == "None"  # pod names resolve
    policy = next(
        o
        for o in objects
        if o["kind"] == "NetworkPolicy" and o["metadata"]["name"] == "raffe-redis"
    )
    assert {p["port"] for p in policy["spec"]["ingress"][0]["ports"]} == {6379, 26379}
    budget = next(
        o
        for o in objects
        if o["kind"] == "PodDisruptionBudget" and o["metadata"]["name"] == "raffe-redis"
    )
    assert budget["spec"]["maxUnavailable"] == 1
    scripts = next(o for o in objects if o["metadata"]["name"] == "raffe-redis-scripts")
    for name, script in scripts["data"].items():
        parsed = subprocess.run(["sh", "-n"], input=script, capture_output=True, text=True)
        assert parsed.returncode == 0, (name, parsed.stderr)


@needs_kubectl
@pytest.mark.parametrize("target", ["overlays/production", "overlays/replicated"])
def test_replicas_spread_over_zones_and_nodes_and_ingress_is_denied_by_default(
    target: str,
) -> None:
    """#55 item 5: every Deployment that runs more than one pod asks the scheduler to keep
    its pods apart by zone and by node (per rollout revision); the namespace denies any
    connection no policy admits."""
    objects = render(target)
    deployments = [w for w in workloads(objects) if w["kind"] == "Deployment"]
    assert deployments
    for deployment in deployments:
        name = deployment["metadata"]["name"]
        spread = deployment["spec"]["template"]["spec"].get("topologySpreadConstraints", [])
        keys = {c["topologyKey"] for c in spread}
        assert keys == {"topology.kubernetes.io/zone", "kubernetes.io/hostname"}, name
        for constraint in spread:
            assert constraint["labelSelector"]["matchLabels"] == {"app.kubernetes.io/name": name}
            assert constraint["matchLabelKeys"] == ["pod-template-hash"]
    deny = next(o for o in objects if o["metadata"]["name"] == "raffe-default-deny")
    assert deny["kind"] == "NetworkPolicy" and deny["spec"]["podSelector"] == {}
    assert deny["spec"]["policyTypes"] == ["Ingress"] and "ingress" not in deny["spec"]


@needs_kubectl
def test_a_gateway_pod_leaves_its_service_before_it_drains_within_its_grace() -> None:
    """#55 item 3: preStop waits while endpoints drop the pod, then SIGTERM drains
    (gateway/__main__.py); both fit in the grace period."""
    from gateway.__main__ import GRACEFUL_S

    gateway = next(w for w in workloads(render("base")) if w["metadata"]["name"] == "raffe-gateway")
    pod = gateway["spec"]["template"]["spec"]
    wait = pod["containers"][0]["lifecycle"]["preStop"]["exec"]["command"]
    assert wait[0] == "sleep" and int(wait[1]) + GRACEFUL_S < pod["terminationGracePeriodSeconds"]


@needs_kubectl
def test_real_overlays_run_one_image_by_digest_and_make_pin_image_sets_it(
    tmp_path: Path,
) -> None:
    """#55 item 5: production and replicated name the image by digest (a tag can be
    moved after a rollout was tested); `make pin-image REF=...` rewrites both, keeping
    the rest; a reference without a digest is refused and nothing is written."""
    from deploy import pin_image

    for target in ("overlays/production", "overlays/replicated"):
        images = {
            c["image"]
            for w in workloads(render(target))
            if w["metadata"]["name"] != "raffe-redis"
            for c in w["spec"]["template"]["spec"]["containers"]
        }
        assert len(images) == 1 and re.fullmatch(r".+@sha256:[0-9a-f]{64}", images.pop())
    copy = tmp_path / "k8s"
    shutil.copytree(K8S, copy)
    before = (copy / "overlays/production/kustomization.yaml").read_text()
    assert pin_image.main(["registry.example.org/raffe:1.2.0", "--k8s", str(copy)]) == 2
    assert (copy / "overlays/production/kustomization.yaml").read_text() == before
    ref = "registry.example.org/team/raffe@sha256:" + "ab" * 32
    assert pin_image.main([ref, "--k8s", str(copy)]) == 0
    for overlay in pin_image.PINNED:
        out = subprocess.run(
            ["kubectl", "kustomize", str(copy / "overlays" / overlay)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        objects = [doc for doc in yaml.safe_load_all(out) if doc]
        gateway = next(w for w in workloads(objects) if w["metadata"]["name"] == "raffe-gateway")
        assert gateway["spec"]["template"]["spec"]["containers"][0]["image"] == ref
    after = (copy / "overlays/production/kustomization.yaml").read_text()
    assert after.count("\n") == before.count("\n")  # comments and the rest kept


@needs_kubectl
def test_the_in_cluster_redis_is_a_component_only_overlays_that_run_it_include() -> None:
    """#55 item 5: production (an external Redis Cluster) renders no Redis and no
    password Secret (created out of band) without `$patch: delete`; local and
    replicated include the component; only local makes its (development) password."""

    def names(target: str) -> set[tuple[str, str]]:
        return {(o["kind"], o["metadata"]["name"]) for o in render(target)}

    redis = {
        ("StatefulSet", "raffe-redis"),
        ("Service", "raffe-redis"),
        ("ConfigMap", "raffe-redis-config"),
        ("NetworkPolicy", "raffe-redis"),
    }
    production = names("overlays/production")
    assert not redis & production and ("Secret", "raffe-redis") not in production
    assert "$patch" not in (K8S / "overlays/production/kustomization.yaml").read_text()
    assert redis <= names("overlays/local") and redis <= names("overlays/replicated")
    assert ("Secret", "raffe-redis") in names("overlays/local")
    assert ("Secret", "raffe-redis") not in names("overlays/replicated")
