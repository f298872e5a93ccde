"""LLM providers: `rules` (no model, the default), `ollama` and `openai` (any compatible server).

An LLM is never required: every caller has a rules path and treats "no answer" from a
provider as "use the rules". Models speak through the LangChain chat model packages;
answers are JSON validated by a pydantic schema, repaired once by asking the model to
fix its own output, then rejected (counted as a parse failure). Each call has a
timeout and a bounded number of transport retries.

The transport is a plain function `(system, user) -> text`, so the Prefect layer can
route every call through a cached task without this module knowing Prefect.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from agentcycle.errors import UserError

T = TypeVar("T", bound=BaseModel)
Transport = Callable[[str, str], str]
PROVIDERS = ("rules", "ollama", "openai")
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_RETRIES = 1
MAX_REPLY_TOKENS = 512  # a skill's JSON reply; a model that rambles is cut, not waited for
_JSON_BLOCK = re.compile(r"\{.*\}", re.DOTALL)


@dataclass(frozen=True)
class LLMSettings:
    """Which model and where; from arguments, else environment, else defaults."""

    provider: str = "rules"
    model: str = ""
    base_url: str = ""
    api_key: str = ""
    timeout_s: float = DEFAULT_TIMEOUT_S
    retries: int = DEFAULT_RETRIES
    max_tokens: int = MAX_REPLY_TOKENS  # AGENTCYCLE_LLM_MAX_TOKENS: less on a slow CPU

    @classmethod
    def resolve(
        cls,
        provider: str | None = None,
        model: str | None = None,
        base_url: str | None = None,
        timeout_s: float | None = None,
        retries: int | None = None,
        max_tokens: int | None = None,
    ) -> LLMSettings:
        env = os.environ
        name = (provider or env.get("AGENTCYCLE_LLM_PROVIDER") or "rules").lower()
        if name not in PROVIDERS:
            raise UserError(f"--provider: {name!r} is not one of {', '.join(PROVIDERS)}")
        if name == "ollama":
            url = base_url or env.get("OLLAMA_BASE_URL") or "http://localhost:11434"
            default_model = env.get("OLLAMA_LLM_MODEL", "qwen2.5:7b")
        else:
            url = base_url or env.get("AGENTCYCLE_LLM_BASE_URL") or env.get("OPENAI_BASE_URL", "")
            default_model = env.get("OPENAI_MODEL", "gpt-4o-mini")
        return cls(
            provider=name,
            model=model or env.get("AGENTCYCLE_LLM_MODEL") or default_model,
            base_url=url,
            api_key=env.get("OPENAI_API_KEY", "not-needed"),
            timeout_s=timeout_s or float(env.get("AGENTCYCLE_LLM_TIMEOUT", DEFAULT_TIMEOUT_S)),
            retries=DEFAULT_RETRIES if retries is None else retries,
            max_tokens=max_tokens or _reply_cap(env.get("AGENTCYCLE_LLM_MAX_TOKENS")),
        )

    def describe(self) -> dict[str, Any]:
        """Safe to log and to hash into cache keys (no API key)."""
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "timeout_s": self.timeout_s,
            "max_tokens": self.max_tokens,
        }


def _reply_cap(raw: str | None) -> int:
    """AGENTCYCLE_LLM_MAX_TOKENS, checked: a positive whole number of tokens."""
    if raw is None or not raw.strip():
        return MAX_REPLY_TOKENS
    if not raw.strip().isdigit() or int(raw) < 1:
        raise UserError(f"AGENTCYCLE_LLM_MAX_TOKENS: not a positive number of tokens: {raw!r}")
    return int(raw)


def _openai_extra_body(settings: LLMSettings) -> dict[str, Any]:
    """Request fields LangChain's own parameters get wrong for us.

    Every skill replies in JSON. Bound as LangChain's `response_format`, a reply cut at
    the cap raises instead of coming back; sent as a plain field, the cut text returns
    and counts as a parse failure, so the step falls back to rules with the reason said.
    LangChain sends the cap as `max_completion_tokens`, which llama.cpp and other
    OpenAI-compatible servers ignore (replies then ran to the context limit: minutes on
    a CPU); they read `max_tokens`. OpenAI itself (no base URL) gets only the new name.
    """
    extra: dict[str, Any] = {"response_format": {"type": "json_object"}}
    if settings.base_url:
        extra["max_tokens"] = settings.max_tokens
    return extra


def chat_transport(settings: LLMSettings) -> Transport:
    """A function sending one system + user message to the configured chat model."""
    if settings.provider == "openai":
        from langchain_openai import ChatOpenAI

        model: Any = ChatOpenAI(
            model=settings.model,
            base_url=settings.base_url or None,
            api_key=settings.api_key,
            timeout=settings.timeout_s,
            max_retries=settings.retries,
            temperature=0,
            max_tokens=settings.max_tokens,
            extra_body=_openai_extra_body(settings),
        )
    elif settings.provider == "ollama":
        from langchain_ollama import ChatOllama

        model = ChatOllama(
            model=settings.model,
            base_url=settings.base_url,
            temperature=0,
            num_predict=settings.max_tokens,
            format="json",
            client_kwargs={"timeout": settings.timeout_s},
        )
    else:
        raise UserError("the rules provider has no chat model")

    def send(system: str, user: str) -> str:
        from langchain_core.messages import HumanMessage, SystemMessage

        reply = model.invoke([SystemMessage(system), HumanMessage(user)])
        content = reply.content
        return content if isinstance(content, str) else json.dumps(content)

    return send


class LLMUnavailable(RuntimeError):
    """The server could not be reached, timed out or answered with an HTTP error."""


@dataclass(frozen=True)
class Completion:
    """One constrained completion: the reply text and what it cost."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float


_SCHEMA_FORMAT: dict[str, str] = {}  # base URL -> response_format style it accepted


def complete_json(
    settings: LLMSettings,
    system: str,
    user: str,
    schema: dict[str, Any],
    max_tokens: int = 256,
) -> Completion:
    """One chat completion constrained to a JSON schema, over plain HTTP.

    Plain HTTP rather than a LangChain client because the planner needs what clients
    hide: the server's grammar-constrained output (llama.cpp: `json_object` with a
    `schema`; OpenAI and vLLM: `json_schema`; Ollama: `format`) and the token counts.
    Every call has `settings.timeout_s`; any transport or HTTP failure raises
    `LLMUnavailable` so the caller falls back at once instead of waiting again.
    """
    import httpx  # a dependency of langchain-openai and prefect alike; loaded on use

    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    timeout = httpx.Timeout(settings.timeout_s, connect=min(5.0, settings.timeout_s))
    started = time.perf_counter()
    try:
        with httpx.Client(timeout=timeout) as client:
            if settings.provider == "ollama":
                body = _ollama_chat(client, settings, messages, schema, max_tokens)
                text = body.get("message", {}).get("content", "")
                usage = (body.get("prompt_eval_count", 0), body.get("eval_count", 0))
            else:
                body = _openai_chat(client, settings, messages, schema, max_tokens)
                text = body["choices"][0]["message"].get("content") or ""
                tokens = body.get("usage") or {}
                usage = (tokens.get("prompt_tokens", 0), tokens.get("completion_tokens", 0))
    except httpx.HTTPError as exc:
        raise LLMUnavailable(f"{type(exc).__name__}: {exc}".strip()[:300]) from None
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise LLMUnavailable(f"unexpected reply shape: {exc}"[:300]) from None
    return Completion(text, int(usage[0] or 0), int(usage[1] or 0), time.perf_counter() - started)


def _openai_chat(
    client: Any,
    settings: LLMSettings,
    messages: list[dict[str, str]],
    schema: dict[str, Any],
    max_tokens: int,
) -> dict[str, Any]:
    """POST /chat/completions; a server refusing llama.cpp's schema style gets the
    OpenAI `json_schema` style once, and the style that worked is remembered."""
    url = (settings.base_url or "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
    styles = {
        "json_object": {"type": "json_object", "schema": schema},
        "json_schema": {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}},
    }
    first = _SCHEMA_FORMAT.get(url, "json_object")
    order = [first, *(s for s in styles if s != first)]
    headers = {"Authorization": f"Bearer {settings.api_key or 'not-needed'}"}
    for style in order:
        payload = {
            "model": settings.model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": max_tokens,
            "response_format": styles[style],
        }
        reply = client.post(url, json=payload, headers=headers)
        if reply.status_code in (400, 422) and style != order[-1]:
            continue  # this server wants the other schema style
        reply.raise_for_status()
        _SCHEMA_FORMAT[url] = style
        return reply.json()
    raise ValueError("no response_format style accepted")  # unreachable: the loop returns


def _ollama_chat(
    client: Any,
    settings: LLMSettings,
    messages: list[dict[str, str]],
    schema: dict[str, Any],
    max_tokens: int,
) -> dict[str, Any]:
    """POST /api/chat with the schema as `format` (Ollama's structured output)."""
    payload = {
        "model": settings.model,
        "messages": messages,
        "stream": False,
        "format": schema,
        "options": {"temperature": 0, "num_predict": max_tokens},
    }
    reply = client.post(settings.base_url.rstrip("/") + "/api/chat", json=payload)
    reply.raise_for_status()
    return reply.json()


def parse_json(text: str, schema: type[T]) -> T:
    """The first JSON object in the text, validated; raises ValueError when unusable."""
    match = _JSON_BLOCK.search(text or "")
    if not match:
        raise ValueError("no JSON object in the reply")
    try:
        return schema.model_validate(json.loads(match.group(0)))
    except (json.JSONDecodeError, ValidationError) as exc:
        raise ValueError(str(exc).splitlines()[0]) from None


@dataclass
class LLMProvider:
    """One configured provider with its counters; `enabled` is False for rules."""

    settings: LLMSettings = field(default_factory=LLMSettings)
    transport: Transport | None = None
    calls: int = 0
    chars_in: int = 0
    chars_out: int = 0
    parse_failures: int = 0
    errors: int = 0
    fallbacks: int = 0
    down: str | None = None  # why the server is given up on; later asks go straight to rules
    retries: int = field(default=DEFAULT_RETRIES)

    @property
    def name(self) -> str:
        return self.settings.provider

    @property
    def enabled(self) -> bool:
        return self.settings.provider != "rules"

    def _send(self, system: str, user: str) -> str | None:
        """The reply, or None when the server failed every attempt. A server that failed
        is not asked again by this provider: a dead one must not cost a timeout per step."""
        if self.down is not None:
            return None
        if self.transport is None:
            self.transport = chat_transport(self.settings)
        for _attempt in range(self.settings.retries + 1):
            self.calls += 1
            self.chars_in += len(system) + len(user)
            try:
                reply = self.transport(system, user)
            except Exception as exc:  # transport errors of any client library: retry, then give up
                self.errors += 1
                self.down = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
                continue
            self.down = None
            self.chars_out += len(reply)
            return reply
        return None

    @property
    def warning(self) -> str | None:
        """One line for the user when the LLM did not do its part, else None."""
        if not self.enabled or not (self.errors or self.fallbacks):
            return None
        why = f"; server: {self.down}" if self.down else ""
        return (
            f"LLM {self.settings.provider} at {self.settings.base_url or '(default URL)'}: "
            f"{self.errors} of {self.calls} calls failed, {self.fallbacks} steps fell back "
            f"to rules{why}"
        )

    def structured(self, system: str, user: str, schema: type[T]) -> T | None:
        """A validated reply, or None (rules take over) after one repair attempt."""
        if not self.enabled:
            return None
        schema_hint = json.dumps(schema.model_json_schema())
        system = f"{system}\nReply with one JSON object matching this schema:\n{schema_hint}"
        reply = self._send(system, user)
        if reply is None:
            self.fallbacks += 1
            return None
        try:
            return parse_json(reply, schema)
        except ValueError as exc:
            repair = (  # the original request again: the repair needs its context
                f"{user}\n\nYour reply was not valid ({exc}). Reply again with only the "
                f"corrected JSON object.\nYour reply was:\n{reply[:4000]}"
            )
            fixed = self._send(system, repair)
            try:
                return parse_json(fixed or "", schema)
            except ValueError:
                self.parse_failures += 1
                self.fallbacks += 1
                return None


def make_provider(
    provider: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    timeout_s: float | None = None,
    transport: Transport | None = None,
) -> LLMProvider:
    """The provider named (or from AGENTCYCLE_LLM_PROVIDER), rules by default."""
    settings = LLMSettings.resolve(provider, model, base_url, timeout_s)
    return LLMProvider(settings=settings, transport=transport)
