"""The engine of any registered game: ``python -m services.engine giraffe-raffe``."""
