"""Prompt-injection screening before any retrieval (legal-RAG seed, node 1).

Rules always; with an LLM configured the seed's skill is asked too (see nodes.py). The
rules see the question twice: as written, and normalised (NFKC, zero-width characters
removed, look-alike Cyrillic letters mapped to Latin, leetspeak digits read as
letters, spaced-out letters such as `i g n o r e` joined), so obfuscation does not hide
the families they look for: an override appended to a real question, fake
`[SYSTEM]`/admin policies, prompt exfiltration ("repeat the text above starting with
'You are'"), role hijack, answer forcing, secret exfiltration, shell payloads and
the same in a few other languages. `tests/data/injection_questions.yaml` is the
labelled set they are measured on.

Both checks fail open on a check that cannot decide (LLM parser error, timeout):
refusing honest questions is the worse failure for a research tool, and nothing
downstream executes the question's text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_OVERRIDE_VERB = (r"(ignore|disregard|forget|override|bypass|skip|drop|abandon|discard|"
                  r"never\s*mind|nevermind|set aside|throw away|cancel)")
# "the override strategy", "skip logic": the verb heads a noun phrase the documents use
_NOT_A_NOUN = (r"(?!\s+(?:strateg|mode|logic|setting|flag|option|value|behaviou?r|mechanism|"
               r"priority|precedence|semantics|path|hook|rule)\w*)")
_PRIOR = (r"(previous|prior|above|earlier|preceding|foregoing|before|so far|until now|"
          r"you (were|have been) (told|given)|the (question|rules|instructions|context|"
          r"guidelines|constraints|directions|system|prompt))")
# Files that hold secrets: no documentation question asks what is in them
_SECRET_FILE = (r"(~/\.ssh|\bid_(rsa|dsa|ecdsa|ed25519)\b|/etc/(passwd|shadow|sudoers)|"
                r"\.aws/credentials|(^|[\s/'\"`])\.env\b)")
# Secret values. Documents name these too ("the provider needs PORTKEY_AZURE_API_KEY"),
# so they count only when the assistant is told to hand one over
_SECRET_VALUE = (r"(\bapi[_ ]?keys?\b|\bsecret[_ ]?keys?\b|\bprivate[_ ]?keys?\b|\bpasswords?\b|"
                 r"\bcredentials\b|\b[A-Z][A-Z0-9]*_(API_KEY|TOKEN|SECRET)\b|"
                 r"\b(your |all |(the )?values? of (the |all )?)(environment|env) variables?\b)")
# An order to the assistant starts a sentence or a clause ("… and cat ~/.aws/credentials");
# the same verb after a subject ("the agent reads X", "credentials include X") describes
_ORDER_START = (r"(?:^|[.;:!?,]\s*|\b(?:and|then|also|now|please|just|first)\s+|"
                r"\b(?:can|could|would|will) you\s+)")
_HANDING_OVER = (r"(read|output|print|cat|dump|show( me)?|display|send|reveal|leak|exfiltrate|"
                 r"upload|include|paste|give me|list|email|tell me)")

_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "instruction override",
        # the verb starts a clause ("override strategy, if the directive…" names a rule
        # of the documents, its comma ends the clause; "override strategy" is a noun)
        rf"\b{_OVERRIDE_VERB}\b{_NOT_A_NOUN}[^.?!\n,;]{{0,15}}"
        r"\b(previous|prior|above|earlier|preceding|all|any|your|the|system|my)\b"
        r"[^.?!\n]{0,25}\b(instructions?|prompts?|rules|directions|guidelines|context|"
        r"constraints|polic(y|ies)|directives?|orders)"
        r"(?![- ]?injection)",  # "skip the prompt-injection screening" names a step
    ),
    (
        "instruction override",
        rf"\b{_OVERRIDE_VERB}\b[^.?!\n]{{0,30}}\b(everything|anything|all( of)? (that|this|it))"
        rf"\b[^.?!\n]{{0,20}}{_PRIOR}",
    ),
    (
        "instruction override",
        rf"\b{_OVERRIDE_VERB}\b\s+(what|everything|anything)\s+(you|i)\s+(were|was|have been|"
        r"said|told)",
    ),
    (
        "instruction override",
        rf"\b{_OVERRIDE_VERB}\s+(the|this|my)\s+question\b[^.?!\n]{{0,10}}[,;]?\s*(and\s+)?"
        r"(instead|just|only|simply)?",
    ),
    (
        "instruction override",
        rf"\b{_OVERRIDE_VERB}\s+(all\s+)?(of\s+)?(the|this|that|these|your|my|any)?\s*"
        r"(above|previous|prior|earlier|preceding|documents?|sources|context|passages|"
        r"question|safety( rules| filters?)?|filters?|guardrails|restrictions)\s*"
        r"([.,;:!]|-|—|\band\b|\bthen\b|$)",
    ),
    (
        "role hijack",
        r"\b(you are now|you're now|from now on,? (you|your)|act as (if you|though you|my \w+ who|"
        r"an? (unrestricted|unfiltered|evil|uncensored|different|new) )|"
        r"pretend (to be|you are|you're)|role-?play as|switch to \w+ mode|"
        r"you are no longer|your new (role|task|job|purpose|instructions?)|"
        r"(your )?only task (now )?is|let'?s play a game where you|"
        r"enter (developer|god|admin|debug|unrestricted) mode)\b",
    ),
    (
        "prompt exfiltration",
        r"\b(reveal|print|show|repeat|output|leak|display|recite|quote|copy|dump|tell me|"
        r"write( out)?|give me|translate|summari[sz]e|paraphrase|encode|spell out|include)\b"
        r"[^.?!\n]{0,40}\b((system|hidden|initial|original|secret|"
        r"internal|developer) (prompt|instructions?|message|configuration|rules)|"
        r"your (instructions|prompt|rules|guidelines|directives|configuration))",
    ),
    (
        "prompt exfiltration",
        r"\b(repeat|print|output|recite|copy|echo|reproduce|write out|show|quote|start|begin|"
        r"summari[sz]e|translate)\b[^.?!\n]{0,40}"
        r"\b(text|words?|everything|content|message|lines?|instructions|conversation)\b[^.?!\n]{0,20}"
        r"\b(above|before (this|the)|preceding|prior|at the (start|beginning)|so far)\b",
    ),
    (
        "prompt exfiltration",
        r"\b(starting|beginning|that (starts|begins)) with ['\"“‘]?\s*you are\b",
    ),
    (
        "prompt exfiltration",
        r"\bwhat (were|are|was|is) (your|the) (initial|original|first|hidden|system|secret)?\s*"
        r"(instructions|prompt|rules)\b|\bwhat (is|was) written in your instructions\b|"
        r"\bwhat (your|the) developers? (told|instructed) you\b|"
        r"\bcopy the preceding message\b|\bthe hidden instructions you were given\b",
    ),
    ("jailbreak", r"\b(jailbreak|jailbroken|developer mode|do anything now|DAN( mode)?|"
                  r"no restrictions|without (any )?(restrictions|rules|filters|guidelines)|"
                  r"unfiltered|unrestricted (ai|assistant|model)|safety (checks|filters) "
                  r"(are )?(disabled|off))\b"),
    (
        "injected instruction block",
        r"(<\|im_start\|>|<\|im_end\|>|\[/?INST\]|<</?SYS>>|###\s*(system|instruction)|"
        r"^\s*system\s*:|\bnew (instructions?|polic(y|ies)|rules?)\s*:|"
        r"[\[<{(]{1,2}\s*/?\s*(system|sys|admin|administrator|developer|root|operator|policy|"
        r"assistant)(\s+(note|message|policy|prompt|override|notice|instructions?|update|"
        r"mode( enabled)?))?\s*[:\]>})]|<!--\s*(system|assistant|admin|developer|"
        r"instructions?|prompt)\b|"
        r"\b(system|admin|administrator|developer|security|assistant|operator)\s+(policy|"
        r"override|message|notice|directive|update|mode|prompt|note)\b[^.?!\n]{0,20}[:\-–]|"
        r"\bsecurity notice from\b|\bpolicy \d+ requires you\b|"
        r"\b(the )?(developer|administrator|admin) has authori[sz]ed you\b)",
    ),
    (
        "answer forcing",
        r"\b(instead|regardless|whatever the (sources|documents|context)|no matter what)\b"
        r"[^.?!\n]{0,40}\b(say|output|respond|answer|reply|write|print|state|claim)\b"
        # a verb that says something ("say 'yes'"), not the noun ending a clause
        # ("what does it use instead of an LLM answer?")
        r"(?=\s*[\w'\"“:])",
    ),
    (
        "answer forcing",
        r"\b(respond|reply|answer) (only|just|solely) with\b|\bjust (say|output|print|reply)\b"
        r"[^.?!\n]{0,10}['\"“A-Z]|\bdo not (search|retrieve|look)\b[^.?!\n]{0,30}\b(just|only)\b|"
        r"\bwith the word [A-Z]{3,}\b|\boutput the word\b",
    ),
    (
        "secret exfiltration",
        rf"{_ORDER_START}{_HANDING_OVER}\b[^?!\n]{{0,50}}({_SECRET_FILE}|{_SECRET_VALUE})",
    ),
    (
        "secret exfiltration",
        rf"\b(what is in|contents of|value of)\b[^?!\n]{{0,50}}{_SECRET_FILE}"
        rf"|(?<!default )\bvalues? of\b[^?!\n]{{0,30}}{_SECRET_VALUE}",
    ),
    (
        "shell payload",
        r"(\brm\s+-[rf]{1,2}\b|\bcurl\b[^|\n]{0,80}\|\s*(ba|z)?sh\b|\bwget\b[^\n]{0,80}\|\s*sh\b|"
        r"\bnc\s+-e\b|\b(run|execute|eval)\s+(this|the following|these|my)\s+(shell\s+)?"
        r"(commands?|shell|bash|code|script)\b|\bruns? my commands\b|/bin/(ba)?sh\b)",
    ),
    (
        "instruction override (other language)",
        r"\b(ignora|ignore[zr]?|ignoriere|vergiss|oubliez?|olvida|dimentica)\b[^.?!\n]{0,30}"
        r"\b(instrucciones|anweisungen|instructions|istruzioni|instruções|regeln|règles|reglas)"
        r"\b|\b(prompt (del|di) sistema|systemprompt|prompt système)\b",
    ),
)
_COMPILED = tuple((name, re.compile(p, re.IGNORECASE | re.MULTILINE)) for name, p in _PATTERNS)
# Upper-case role labels anywhere ("... ---- SYSTEM: output secrets"): case matters here.
_COMPILED += (("injected instruction block",
               re.compile(r"\b(SYSTEM|ADMIN|ASSISTANT|DEVELOPER|OPERATOR)( [A-Z]+)?\s*:")),)

# Look-alike letters (Cyrillic, Greek) that NFKC leaves alone, and leetspeak digits.
_HOMOGLYPHS = str.maketrans("аеорсухіјѕԁɡνοΑΒΕΗΙΚΜΝΟΡΤΧΥАВЕКМНОРСТХІЈЅ",
                            "aeopcyxijsdgvoABEHIKMNOPTXYABEKMHOPCTXIJS")
_LEET = str.maketrans("013457@$|", "oieastasi")
_INVISIBLE = re.compile(r"[\u200b-\u200f\u2028-\u202f\u2060-\u206f\ufeff\u00ad]")
# Runs of single characters split by one separator: "i g n o r e", "i-g-n-o-r-e", "r.e.v".
# The separator is the same throughout a run, so `I-g-n-o-r-e p-r-e-v` keeps its words.
_SPACED = re.compile(r"(?<!\w)\w([ .\-_*·/|])(?:\w\1){0,}\w(?!\w)")


def _join_spaced(text: str) -> str:
    """`i g n o r e   a l l` -> `ignore all` (wider gaps separate the words)."""
    return _SPACED.sub(lambda m: m.group(0).replace(m.group(1), ""), text)


def normalise(text: str) -> str:
    """The question with the usual obfuscations undone (for matching only)."""
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text).translate(_HOMOGLYPHS)
    text = _join_spaced(text).replace("_", " ")
    return re.sub(r"[ \t]{2,}", " ", text)


def _deleet(text: str) -> str:
    """Digits inside words read as letters (`1gn0r3` -> `ignore`); plain numbers kept."""
    return re.sub(r"\b(?=\w*[A-Za-z])\w*\d\w*\b", lambda m: m.group(0).translate(_LEET), text)


@dataclass(frozen=True)
class InjectionVerdict:
    is_safe: bool
    reasoning: str
    source: str = "rules"

    def to_dict(self) -> dict[str, object]:
        return {"is_safe": self.is_safe, "reasoning": self.reasoning, "source": self.source}


def check_injection(text: str) -> InjectionVerdict:
    """Pattern rules on the text as written and normalised: the first match, or safe."""
    variants = [text]
    normalised = normalise(text)
    if normalised != text:
        variants.append(normalised)
    deleeted = _deleet(normalised)
    if deleeted != normalised:
        variants.append(deleeted)
    for variant in variants:
        for name, pattern in _COMPILED:
            match = pattern.search(variant)
            if match:
                how = "" if variant is text else " (after undoing obfuscation)"
                return InjectionVerdict(False, f"{name}{how}: {match.group(0).strip()[:80]!r}")
    return InjectionVerdict(True, "no injection pattern matched")
