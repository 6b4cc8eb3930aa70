"""The command line (`shuffle-accountant`): `main` is the console script's entry point."""

from accountant.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
