"""The key whose list holds the things a question describes.

"Which tool lists all three of those segmenters as its dependencies?" over

    DEPENDENCIES = {"Cropper_Tool": ["Nuclei_Segmenter_Tool", "Cell_Segmenter_Tool"],
                    "Analyzer_Tool": ["Cropper_Tool"]}

asks for a key, `Cropper_Tool`, though the names nearest the question's words are the
list's members. The owner is the key whose list holds the most members named by the
question's noun ("segmenters": `*_Segmenter_Tool`).
"""

from __future__ import annotations

import re

from agentcycle.agent.research.text import stem

# "which tool lists all three of those segmenters as its dependencies", "which stage has
# the fetchers as its inputs": what the wh-noun holds, then "as its"
_ASKS_OWNER = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:lists?|has|have|holds?|contains?|includes?|"
    r"declares?|names?)\s+(?P<items>(?:[\w-]+\s+){0,5}?[A-Za-z-]+)\s+as\s+(?:its|their)\b",
    re.IGNORECASE,
)
# `"Key": ["a", "b"]`, `key: [a, b]`: a key and the list it maps to
_KEYED_LIST = re.compile(r"[\"']?(?P<key>[\w.-]+)[\"']?\s*:\s*\[(?P<items>[^\[\]]*)\]")
_ITEM = re.compile(r"[A-Za-z_][\w.-]*")


def listed_noun(question: str) -> str:
    """The stemmed noun of the things a "which X lists … as its Y" question describes
    ("segmenters" → "segment"), or '' when the question asks no such owner."""
    match = _ASKS_OWNER.search(question)
    return stem(match.group("items").split()[-1].lower()) if match else ""


def listed_owner(unit: str, question: str) -> str | None:
    """The key of the unit's list that holds the most members named by the question's
    noun (at least two, and more than any other key's list), or None."""
    noun = listed_noun(question)
    if not noun:
        return None
    held = {}
    for match in _KEYED_LIST.finditer(unit):
        members = _ITEM.findall(match.group("items"))
        held[match.group("key")] = sum(
            any(stem(part.lower()) == noun for part in re.split(r"[_.-]", member))
            for member in members
        )
    ranked = sorted(held.items(), key=lambda kv: kv[1], reverse=True)
    if not ranked or ranked[0][1] < 2 or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    return ranked[0][0]
