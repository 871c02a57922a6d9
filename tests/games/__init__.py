"""Games that exist for tests only: registered with RAFFE_EXTRA_GAMES."""
