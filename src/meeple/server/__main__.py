"""``python -m meeple.server``: the same as ``meeple serve`` (used by tests to kill and restart)."""

import typer

from meeple.cli_serve import serve

if __name__ == "__main__":
    typer.run(serve)
