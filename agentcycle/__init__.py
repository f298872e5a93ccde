"""agentcycle: agents that do real multi-step work as Prefect flows and prove what they did.

The code lives in the top-level folders of the repository (``agent/``, ``knowledge/``,
``tasks/``, ``flows/``, ``storage/``), installed as sub-packages of this one.
"""

__version__ = "0.1.0"
