"""Every task run has a readable name: no Prefect task is left to its `name-3f2` default."""

from __future__ import annotations

import importlib
import pkgutil

from prefect import Task

import agentcycle.tasks


def _tasks() -> list[tuple[str, Task]]:
    found = []
    for module_info in pkgutil.iter_modules(agentcycle.tasks.__path__):
        module = importlib.import_module(f"agentcycle.tasks.{module_info.name}")
        found += [
            (f"{module.__name__}.{name}", value)
            for name, value in vars(module).items()
            if isinstance(value, Task) and value.__module__ == module.__name__
        ]
    return found


def test_every_task_names_its_runs() -> None:
    tasks = _tasks()
    assert len(tasks) >= 10  # the program, research, retrieval and evaluation tasks
    unnamed = [name for name, task in tasks if not task.task_run_name]
    assert not unnamed, f"tasks whose runs get a hash-suffixed name: {unnamed}"
