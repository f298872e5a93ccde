"""JSON Schemas of the pack files, so editors can complete and check them.

Generated from the pydantic models (the single source of truth) and committed under
`knowledge/schemas/`; a test fails when they drift from the models. Point an editor's
YAML language server at them, e.g. in a pack's programs.yaml:
`# yaml-language-server: $schema=../../schemas/programs.schema.json`.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from agentcycle.knowledge.errors_schema import DiagnosableErrorsFile, RecoverableErrorsFile
from agentcycle.knowledge.metrics_schema import MetricsFile
from agentcycle.knowledge.schema import FileCategoriesFile, ProgramsFile, WorkflowsFile

SCHEMAS_DIR = Path(__file__).resolve().parent / "schemas"

PACK_FILES: dict[str, type[BaseModel]] = {
    "programs": ProgramsFile,
    "workflows": WorkflowsFile,
    "file_categories": FileCategoriesFile,
    "metrics": MetricsFile,
    "recoverable_errors": RecoverableErrorsFile,
    "diagnosable_errors": DiagnosableErrorsFile,
}


def schema_texts() -> dict[str, str]:
    """File name → JSON Schema text for every pack file."""
    texts = {}
    for name, model in PACK_FILES.items():
        schema = model.model_json_schema()
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["title"] = f"agentcycle {name}.yaml"
        texts[f"{name}.schema.json"] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return texts


def write_schemas(directory: Path = SCHEMAS_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for filename, text in schema_texts().items():
        path = directory / filename
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
