"""Tournaments: an event-sourced tournament engine and the runner that plays it out."""
