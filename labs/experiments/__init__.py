"""Real queue experiments on a real Redis server, importable without Django."""
