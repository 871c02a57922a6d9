"""The notifier: tells players it is their turn at a turn-based table (docs/notifications.md)."""
