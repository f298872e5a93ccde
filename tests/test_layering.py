"""The layering contracts in pyproject.toml hold (import-linter over the installed layout).

`make test` runs the same check first; this keeps it in the plain pytest run too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_are_kept() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "lint_imports.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout
