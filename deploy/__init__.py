"""Deployment files; deploy.podman.play runs an overlay as podman containers."""
