"""The typer command-line interface, one module per command group."""
