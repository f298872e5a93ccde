"""Prefect deployment builders for serve and deploy, and prefect.yaml.

Only constants here: the CLI reads the default schedule without loading Prefect.
"""

NIGHTLY = "0 2 * * *"  # 02:00 every night, server time
