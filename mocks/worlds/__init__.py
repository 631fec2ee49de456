"""The bundled worlds: a fixture per domain (``<domain>.json``), and the Python a world cannot declare."""
