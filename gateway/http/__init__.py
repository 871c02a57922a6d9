"""HTTP plumbing every room uses: problem+json errors, the guard, callers, quotas, the
OpenAPI document."""
