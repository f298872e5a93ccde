"""`failure_diagnosis.html`: a self-contained page explaining a terminal failure.

What happened, the likely cause and how to fix it (from the pack's YAML hint in
rules-only mode), with the program, the cycle and the end of its log. No external
assets, so it opens from a shared folder or an e-mail attachment as it is.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentcycle.agent.program.recovery import Diagnosis
from agentcycle.agent.program.state import write_atomic
from agentcycle.reports.evidence import diagnosis_evidence_html

DIAGNOSIS_FILE = "failure_diagnosis.html"


def diagnosis_html(
    diagnosis: Diagnosis, session_id: str, found: Mapping[str, Any] | None = None
) -> str:
    """`found`: what the retrieve task found for the cycle that diagnosed (quoted)."""
    esc = html.escape
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Failure diagnosis: {esc(diagnosis.name)}</title>
<style>
body{{font-family:system-ui,sans-serif;max-width:54rem;margin:2rem auto;padding:0 1rem;color:#222}}
h1{{color:#b00020}}dt{{font-weight:bold;margin-top:1rem}}
pre{{background:#f6f6f6;border:1px solid #ddd;padding:.8rem;overflow-x:auto;white-space:pre-wrap}}
</style></head><body>
<h1>{esc(diagnosis.program)} failed: {esc(diagnosis.name)}</h1>
<p>Session <code>{esc(session_id)}</code>, cycle {diagnosis.cycle}. The session stopped
cleanly; nothing after this cycle ran.</p>
<dl>
<dt>What happened</dt><dd>{esc(diagnosis.what)}</dd>
<dt>Likely cause</dt><dd>{esc(diagnosis.cause)}</dd>
<dt>How to fix it</dt><dd>{esc(diagnosis.fix)}</dd>
</dl>
<h2>End of the program's log</h2>
<pre>{esc(diagnosis.excerpt)}</pre>
{diagnosis_evidence_html(found, diagnosis.name)}
</body></html>
"""


def write_diagnosis(
    session_dir: Path, diagnosis: Diagnosis, session_id: str, found: Mapping[str, Any] | None = None
) -> Path:
    path = session_dir / DIAGNOSIS_FILE
    write_atomic(path, diagnosis_html(diagnosis, session_id, found))
    return path
