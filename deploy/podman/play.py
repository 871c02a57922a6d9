"""Run a rendered overlay's workloads as podman containers, as a cluster would run them.

    python deploy/podman/play.py up   [--overlay deploy/k8s/overlays/local] [--publish 8000]
    python deploy/podman/play.py down
    python deploy/podman/play.py heal     # start what died, as a ReplicaSet would
    python deploy/podman/play.py status

Why not ``podman kube play``: it starts pods, but it gives Services no names, so
``dns:///raffe-giraffe-raffe:50061`` would resolve nothing, and it ignores readiness
probes. This script reads what ``kubectl kustomize`` renders and keeps to what the
manifests say: every replica of a Deployment or StatefulSet is a container on one
network, named by each Service that selects it (a headless Service's DNS answers every
replica, as aardvark-dns does for a shared alias); ``envFrom``/``env`` from the
ConfigMaps and Secrets with ``$(VAR)`` expanded in the arguments; the security context
(user, read-only root, no capabilities, no privilege escalation), CPU and memory limits,
emptyDir as tmpfs, ConfigMap volumes as read-only files, a volume per claim template
owned by the pod's fsGroup, restart always. Readiness probes (HTTP, gRPC health, exec,
TCP) are run from the host against each container until all pass.

Replicas: the Deployment's own count, else its autoscaler's minReplicas; ``--replicas
raffe-giraffe-raffe=2`` overrides. Images: ``--image redis:7.2=localhost/raffe-redis:bookworm``
maps a manifest's image to a local one (no registry is needed).
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
LABEL = "raffe.io/play"  # every container, volume and network this script makes
PODMAN = ["podman", "--runtime", "runc"]
DEFAULT_IMAGES = {"raffe": "localhost/raffe:dev", "redis:7.2": "localhost/raffe-redis:bookworm"}

Obj = dict[str, Any]


@dataclass
class Replica:
    """One container: a workload's pod ``index``."""

    workload: Obj
    index: int
    name: str
    aliases: list[str] = field(default_factory=list)

    @property
    def pod(self) -> Obj:
        return dict(self.workload["spec"]["template"]["spec"])

    @property
    def container(self) -> Obj:
        return dict(self.pod["containers"][0])


def podman(*args: str, check: bool = True) -> str:
    done = subprocess.run([*PODMAN, *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"podman {' '.join(args[:3])}: {done.stderr.strip()}")
    return done.stdout.strip()


def limits() -> list[str]:
    """podman's default open-files and process limits exceed what such a machine allows."""
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return ["--ulimit", f"nofile={hard}:{hard}", "--ulimit", "nproc=32768:32768"]


def render(overlay: Path) -> list[Obj]:
    text = subprocess.run(
        ["kubectl", "kustomize", str(overlay)], capture_output=True, text=True, check=True
    ).stdout
    return [o for o in yaml.safe_load_all(text) if o]


def of_kind(objects: list[Obj], *kinds: str) -> list[Obj]:
    return [o for o in objects if o["kind"] in kinds]


def named(objects: list[Obj], kind: str, name: str) -> Obj:
    return next(o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name)


def maybe_named(objects: list[Obj], kind: str, name: str) -> Obj | None:
    return next((o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name), None)


def secret_data(secret: Obj) -> dict[str, str]:
    data = {k: base64.b64decode(v).decode() for k, v in (secret.get("data") or {}).items()}
    return {**data, **(secret.get("stringData") or {})}


def replica_count(workload: Obj, objects: list[Obj], wanted: dict[str, int]) -> int:
    name = workload["metadata"]["name"]
    if name in wanted:
        return wanted[name]
    if "replicas" in workload["spec"]:
        return int(workload["spec"]["replicas"])
    for hpa in of_kind(objects, "HorizontalPodAutoscaler"):
        if hpa["spec"]["scaleTargetRef"]["name"] == name:
            return int(hpa["spec"].get("minReplicas", 1))
    return 1


def replicas(objects: list[Obj], wanted: dict[str, int]) -> list[Replica]:
    """StatefulSets first (their pods are what the others need), then Deployments."""
    out = []
    for workload in of_kind(objects, "StatefulSet") + of_kind(objects, "Deployment"):
        name = workload["metadata"]["name"]
        labels = workload["spec"]["template"]["metadata"].get("labels", {})
        services = [
            s["metadata"]["name"]
            for s in of_kind(objects, "Service")
            if s["spec"].get("selector") and s["spec"]["selector"].items() <= labels.items()
        ]
        for i in range(replica_count(workload, objects, wanted)):
            pod = f"{name}-{i}"
            aliases = list(services)
            if workload["kind"] == "StatefulSet":  # a stable name per pod
                aliases.append(f"{pod}.{workload['spec']['serviceName']}")
            out.append(Replica(workload, i, pod, aliases))
    return out


def environment(container: Obj, objects: list[Obj]) -> dict[str, str]:
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            env.update(named(objects, "ConfigMap", source["configMapRef"]["name"])["data"])
        if "secretRef" in source:
            env.update(secret_data(named(objects, "Secret", source["secretRef"]["name"])))
    for item in container.get("env", []):
        if "value" in item:
            env[item["name"]] = expand(str(item["value"]), env)
        elif "secretKeyRef" in item.get("valueFrom", {}):
            ref = item["valueFrom"]["secretKeyRef"]
            secret = maybe_named(objects, "Secret", ref["name"])
            if secret is None or ref["key"] not in secret_data(secret):
                if ref.get("optional"):
                    continue  # as Kubernetes does: the variable is left as envFrom set it
                raise SystemExit(f"{ref['name']}: no such Secret (or no key {ref['key']})")
            env[item["name"]] = secret_data(secret)[ref["key"]]
        elif "configMapKeyRef" in item.get("valueFrom", {}):
            ref = item["valueFrom"]["configMapKeyRef"]
            env[item["name"]] = named(objects, "ConfigMap", ref["name"])["data"][ref["key"]]
    return env


def expand(text: str, env: dict[str, str]) -> str:
    """Kubernetes' ``$(VAR)``: a defined variable's value, anything else left as is."""
    return re.sub(r"\$\((\w+)\)", lambda m: env.get(m.group(1), m.group(0)), text)


def cpus(quantity: str) -> str:
    return str(int(quantity[:-1]) / 1000) if quantity.endswith("m") else quantity


def memory(quantity: str) -> str:
    units = {"Ki": "k", "Mi": "m", "Gi": "g"}
    return next(
        (quantity[: -len(u)] + s for u, s in units.items() if quantity.endswith(u)), quantity
    )


def security(pod: Obj, container: Obj) -> list[str]:
    flags = []
    context = {**pod.get("securityContext", {}), **container.get("securityContext", {})}
    if "runAsUser" in context:
        flags += [
            "--user",
            f"{context['runAsUser']}:{context.get('runAsGroup', context['runAsUser'])}",
        ]
    if context.get("readOnlyRootFilesystem"):
        flags += ["--read-only", "--read-only-tmpfs=false"]
    if "ALL" in context.get("capabilities", {}).get("drop", []):
        flags += ["--cap-drop", "all"]
    if context.get("allowPrivilegeEscalation") is False:
        flags += ["--security-opt", "no-new-privileges"]
    return flags


def volumes(replica: Replica, objects: list[Obj], files: Path, project: str) -> list[str]:
    pod, flags = replica.pod, []
    sources = {v["name"]: v for v in pod.get("volumes", [])}
    claims = {
        t["metadata"]["name"] for t in replica.workload["spec"].get("volumeClaimTemplates", [])
    }
    for mount in replica.container.get("volumeMounts", []):
        name, path = mount["name"], mount["mountPath"]
        source = sources.get(name, {})
        if "emptyDir" in source:
            flags += ["--tmpfs", f"{path}:rw,mode=1777"]
        elif "configMap" in source:
            folder = files / replica.name / name
            folder.mkdir(parents=True, exist_ok=True)
            for key, value in named(objects, "ConfigMap", source["configMap"]["name"])[
                "data"
            ].items():
                (folder / key).write_text(value)
            folder.chmod(0o755)
            flags += ["-v", f"{folder}:{path}:ro,Z"]
        elif name in claims:
            flags += ["-v", f"{claim_volume(replica, name, project)}:{path}"]
        else:
            raise ValueError(f"{replica.name}: volume {name} of a kind this script does not run")
    return flags


def claim_volume(replica: Replica, claim: str, project: str) -> str:
    """A claim template's volume, kept across restarts and owned by the pod's fsGroup."""
    volume = f"{claim}-{replica.name}"
    if not _exists("volume", volume):
        podman("volume", "create", "--label", f"{LABEL}={project}", volume)
    group = replica.pod.get("securityContext", {}).get("fsGroup")
    if group is not None:
        mountpoint = podman("volume", "inspect", "--format", "{{.Mountpoint}}", volume)
        shutil.chown(mountpoint, user=group, group=group)
    return volume


def _exists(kind: str, name: str) -> bool:
    return subprocess.run([*PODMAN, kind, "exists", name], capture_output=True).returncode == 0


def run_command(
    replica: Replica, objects: list[Obj], args: argparse.Namespace, files: Path
) -> list[str]:
    container, pod = replica.container, replica.pod
    env = environment(container, objects)
    image = image_for(container["image"], args.images)
    flags = [
        "run", "--detach", "--name", replica.name, "--hostname", replica.name,
        "--network", args.project, "--restart", "always",
        "--label", f"{LABEL}={args.project}",
        "--label", f"{LABEL}.workload={replica.workload['metadata']['name']}",
        *limits(), *security(pod, container), *volumes(replica, objects, files, args.project),
    ]  # fmt: skip
    for alias in replica.aliases:
        flags += ["--network-alias", alias]
    for key, value in env.items():
        flags += ["--env", f"{key}={value}"]
    resources = container.get("resources", {}).get("limits", {})
    if "cpu" in resources:
        flags += ["--cpus", cpus(str(resources["cpu"]))]
    if "memory" in resources:
        flags += ["--memory", memory(str(resources["memory"]))]
    publish = args.publish.get(replica.workload["metadata"]["name"])
    if publish is not None:
        target = port_number(container, "main")
        flags += ["--publish", f"127.0.0.1:{publish + replica.index}:{target}"]
    if "command" in container:
        flags += ["--entrypoint", json.dumps([expand(c, env) for c in container["command"]])]
    return [*flags, image, *[expand(a, env) for a in container.get("args", [])]]


def port_number(container: Obj, port: int | str) -> int:
    if isinstance(port, int) or str(port).isdigit():
        return int(port)
    return int(next(p["containerPort"] for p in container["ports"] if p["name"] == port))


def address(name: str) -> str:
    return podman(
        "inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", name
    )


def ready(replica: Replica) -> bool:
    """The container's readiness probe, run from the host against its address."""
    probe = replica.container.get("readinessProbe")
    if probe is None:
        return podman("inspect", "--format", "{{.State.Running}}", replica.name) == "true"
    try:
        host = address(replica.name)
        if "httpGet" in probe:
            port = port_number(replica.container, probe["httpGet"]["port"])
            url = f"http://{host}:{port}{probe['httpGet'].get('path', '/')}"
            with urllib.request.urlopen(url, timeout=2) as answer:
                return bool(200 <= answer.status < 400)
        if "grpc" in probe:
            return grpc_serving(f"{host}:{probe['grpc']['port']}", probe["grpc"].get("service", ""))
        if "exec" in probe:
            done = subprocess.run(
                [*PODMAN, "exec", replica.name, *probe["exec"]["command"]], capture_output=True
            )
            return done.returncode == 0
        if "tcpSocket" in probe:
            port = port_number(replica.container, probe["tcpSocket"]["port"])
            with socket.create_connection((host, port), timeout=2):
                return True
    except (OSError, RuntimeError):
        return False
    raise ValueError(f"{replica.name}: a readiness probe of a kind this script does not run")


def grpc_serving(target: str, service: str) -> bool:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(target) as channel:
        try:
            answer = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=2
            )
        except grpc.RpcError:
            return False
    return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)


def wait_ready(pods: list[Replica], timeout: float, progress: bool = True) -> None:
    deadline, waiting = time.monotonic() + timeout, list(pods)
    while waiting:
        waiting = [r for r in waiting if not ready(r)]
        if progress:
            done = len(pods) - len(waiting)
            print(f"\r  ready {done}/{len(pods)}", end="", file=sys.stderr, flush=True)
        if not waiting:
            break
        if time.monotonic() > deadline:
            names = ", ".join(r.name for r in waiting)
            raise TimeoutError(f"not ready after {timeout:.0f} s: {names}\n{logs(waiting)}")
        time.sleep(0.5)
    if progress:
        print(file=sys.stderr)


def logs(pods: list[Replica]) -> str:
    return "\n".join(
        f"--- {r.name}\n" + subprocess.run([*PODMAN, "logs", "--tail", "20", r.name],
                                          capture_output=True, text=True).stderr
        for r in pods
    )  # fmt: skip


def image_for(ref: str, images: dict[str, str]) -> str:
    """The local image a manifest's ``ref`` runs as: ``images`` maps a name with its tag
    (redis:7.2) or without (raffe, whatever tag the overlay gave it)."""
    return images.get(ref) or images.get(ref.rsplit(":", 1)[0]) or ref


# How to make each default image where no registry is reachable.
MAKE_IMAGE = {
    "localhost/raffe": "make image IMAGE={}",
    "localhost/raffe-redis": "deploy/docker/debian-base.sh redis",
}


def check_images(objects: list[Obj], images: dict[str, str]) -> None:
    """Say which local image is missing and how to make it, before starting anything
    (podman would try to pull it from a registry called localhost, and fail obscurely)."""
    wanted = {
        image_for(c["image"], images)
        for w in objects
        if w["kind"] in ("Deployment", "StatefulSet")
        for c in w["spec"]["template"]["spec"]["containers"]
    }
    missing = sorted(i for i in wanted if i.startswith("localhost/") and not _exists("image", i))
    if missing:
        how = [MAKE_IMAGE.get(i.rsplit(":", 1)[0], "build it").format(i) for i in missing]
        hints = "; ".join(f"{i}: {h}" for i, h in zip(missing, how, strict=True))
        raise SystemExit(f"missing images (make them first): {hints}")


def up(args: argparse.Namespace) -> list[Replica]:
    objects = render(args.overlay)
    check_images(objects, args.images)
    named(objects, "ConfigMap", "raffe-config")["data"].update(args.settings)
    if not _exists("network", args.project):
        podman("network", "create", "--label", f"{LABEL}={args.project}", args.project)
    files = Path(tempfile.mkdtemp(prefix=f"{args.project}-files-"))
    pods = replicas(objects, args.replicas)
    stateful = [r for r in pods if r.workload["kind"] == "StatefulSet"]
    for group in (stateful, [r for r in pods if r not in stateful]):
        for replica in group:
            print(f"  start {replica.name}", file=sys.stderr)
            podman(*run_command(replica, objects, args, files))
        wait_ready(group, args.timeout)
    return pods


def down(project: str) -> None:
    """Everything this script made for ``project``: containers, volumes, the network."""
    label = f"label={LABEL}={project}"
    for name in podman("ps", "-a", "--filter", label, "--format", "{{.Names}}").split():
        podman("rm", "-f", "--time", "5", name, check=False)
    for name in podman("volume", "ls", "--filter", label, "--format", "{{.Name}}").split():
        podman("volume", "rm", "-f", name, check=False)
    podman("network", "rm", "-f", project, check=False)


def heal(project: str) -> list[str]:
    """Start every container of ``project`` that is not running, as a ReplicaSet replaces
    a dead pod (podman's own restart policy does not act on a container it was told to
    kill); returns their names."""
    label = f"label={LABEL}={project}"
    dead = podman("ps", "-a", "--filter", label, "--filter", "status=exited",
                  "--format", "{{.Names}}").split()  # fmt: skip
    for name in dead:
        podman("start", name)
    return dead


def status(project: str) -> str:
    return podman("ps", "-a", "--filter", f"label={LABEL}={project}",
                  "--format", "{{.Names}}\t{{.Status}}\t{{.Ports}}")  # fmt: skip


def pairs(items: list[str], parse: type = str) -> dict[str, Any]:
    return {k: parse(v) for k, v in (item.split("=", 1) for item in items)}


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["up", "down", "heal", "status"])
    parser.add_argument("--overlay", type=Path, default=ROOT / "deploy/k8s/overlays/local")
    parser.add_argument("--project", default="raffe", help="network name and label")
    parser.add_argument("--image", action="append", default=[], help="manifest=local image")
    parser.add_argument("--replicas", action="append", default=[], help="workload=count")
    parser.add_argument(
        "--publish", action="append", default=["raffe-gateway=8000"],
        help="workload=host port on 127.0.0.1 (replica i on port + i)",
    )  # fmt: skip
    parser.add_argument(
        "--setting", action="append", default=[], help="RAFFE_X=value over raffe-config"
    )
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    args.images = {**DEFAULT_IMAGES, **pairs(args.image)}
    args.replicas = pairs(args.replicas, int)
    args.publish = pairs(args.publish, int)
    args.settings = pairs(args.setting)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.action == "down":
        down(args.project)
    elif args.action == "heal":
        print(" ".join(heal(args.project)))
    elif args.action == "status":
        print(status(args.project))
    else:
        up(args)
        print(status(args.project))
    return 0


if __name__ == "__main__":
    sys.exit(main())
