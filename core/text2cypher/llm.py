"""A small chat client for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, LiteLLM...).

Why our own retry loop instead of the SDK's: every retry has to be counted (the request log
records retries so the retry rate can be watched), bounded, and reported without ever echoing the API
key. The SDK's own retries are switched off. Without `OPENAI_MODEL` and a key or base URL,
`settings().llm_configured` is False and nothing here is used: the product runs offline.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from core.config import get_setting, settings
from core.errors import ClauseGraphError

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class LLMError(ClauseGraphError, RuntimeError):
    """The LLM could not give an answer (not configured, unreachable, refused, bad reply)."""

    def __init__(self, message: str, status: int | None = None, retries: int = 0):
        super().__init__(message)
        self.status = status
        self.retries = retries


@dataclass
class LLMCall:
    purpose: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    elapsed_ms: float = 0.0
    retries: int = 0
    error: str | None = None


@dataclass
class TokenLedger:
    """Token use and retries of one request, summed over its LLM calls."""

    calls: list[LLMCall] = field(default_factory=list)

    def add(self, call: LLMCall) -> None:
        self.calls.append(call)

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.calls)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.calls)

    @property
    def retries(self) -> int:
        return sum(c.retries for c in self.calls)

    def to_dict(self) -> dict:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "total_tokens": self.prompt_tokens + self.completion_tokens, "llm_calls": len(self.calls),
                "retries": self.retries,
                "per_call": [{"purpose": c.purpose, "prompt_tokens": c.prompt_tokens,
                              "completion_tokens": c.completion_tokens, "elapsed_ms": c.elapsed_ms,
                              "retries": c.retries, **({"error": c.error} if c.error else {})}
                             for c in self.calls]}


@dataclass(frozen=True)
class LLMOptions:
    timeout_s: float = 30.0
    max_retries: int = 3          # retries after the first try, on 429/5xx/timeouts/connection errors
    backoff_s: float = 0.5        # first wait; doubles each retry
    max_backoff_s: float = 8.0
    temperature: float = 0.0
    max_tokens: int = 800

    @classmethod
    def from_settings(cls) -> "LLMOptions":
        return cls(timeout_s=float(get_setting("CLAUSEGRAPH_LLM_TIMEOUT", "llm", "timeout", default="30")),
                   max_retries=max(0, min(int(get_setting("CLAUSEGRAPH_LLM_RETRIES", "llm", "retries", default="3")), 6)),
                   backoff_s=float(get_setting("CLAUSEGRAPH_LLM_BACKOFF", "llm", "backoff", default="0.5")),
                   max_tokens=int(get_setting("CLAUSEGRAPH_LLM_MAX_TOKENS", "llm", "max_tokens", default="800")))


class LLMClient:
    """`chat(messages) -> text`, with bounded retries and token accounting into a ledger."""

    def __init__(self, api_key: str | None = None, base_url: str | None = None, model: str | None = None,
                 options: LLMOptions | None = None):
        cfg = settings()
        self.api_key = api_key if api_key is not None else cfg.openai_api_key
        self.base_url = base_url if base_url is not None else cfg.openai_base_url
        self.model = model or cfg.openai_model
        if not self.model or not (self.api_key or self.base_url):
            raise LLMError("no LLM configured: set OPENAI_MODEL and OPENAI_API_KEY (or OPENAI_BASE_URL), "
                           "or [llm] model/api_key/base_url in .streamlit/secrets.toml")
        self.options = options or LLMOptions.from_settings()
        import openai

        self._openai = openai
        # A local server may need no key; the SDK insists on one, so a placeholder goes instead.
        self._client = openai.OpenAI(api_key=self.api_key or "not-needed", base_url=self.base_url or None,
                                     timeout=self.options.timeout_s, max_retries=0)

    def redact(self, text: str) -> str:
        if self.api_key and len(self.api_key) >= 4:
            text = text.replace(self.api_key, "[redacted]")
        from core.request_log import scrub

        return scrub(text)

    def chat(self, messages: list[dict], purpose: str, ledger: TokenLedger | None = None,
             json_mode: bool = False) -> str:
        call = LLMCall(purpose)
        started = time.perf_counter()
        try:
            return self._chat(messages, call, json_mode)
        except LLMError as exc:
            call.error = str(exc)
            exc.retries = call.retries
            raise
        finally:
            call.elapsed_ms = round((time.perf_counter() - started) * 1000, 1)
            if ledger is not None:
                ledger.add(call)

    def _chat(self, messages: list[dict], call: LLMCall, json_mode: bool) -> str:
        o, openai = self.options, self._openai
        kwargs = {"model": self.model, "messages": messages, "temperature": o.temperature, "max_tokens": o.max_tokens}
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        where = self.base_url or "api.openai.com"
        for attempt in range(o.max_retries + 1):
            retry_after = None
            try:
                resp = self._client.chat.completions.create(**kwargs)
            except openai.APITimeoutError:
                problem, status = f"no reply within {o.timeout_s:g} s", None
            except openai.APIConnectionError as exc:
                problem, status = f"cannot connect ({exc.__class__.__name__})", None
            except openai.APIStatusError as exc:
                status = exc.status_code
                problem = f"HTTP {status}: {_short(_error_text(exc))}"
                retry_after = _retry_after(exc)
                if status not in RETRY_STATUS:
                    raise LLMError(self.redact(f"the LLM at {where} refused the request ({problem})"), status) from None
            except openai.OpenAIError as exc:
                raise LLMError(self.redact(f"LLM call failed: {exc.__class__.__name__}: {_short(str(exc))}")) from None
            else:
                usage = getattr(resp, "usage", None)
                call.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
                call.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
                choices = getattr(resp, "choices", None) or []
                text = choices[0].message.content if choices and choices[0].message else None
                if not text or not text.strip():
                    raise LLMError(f"the LLM at {where} returned an empty reply")
                return text
            if attempt >= o.max_retries:
                raise LLMError(self.redact(f"the LLM at {where} failed after {attempt + 1} tries ({problem})"), status)
            call.retries += 1
            wait = min(o.backoff_s * (2 ** attempt), o.max_backoff_s)
            if retry_after is not None:
                wait = min(max(wait, retry_after), o.max_backoff_s)
            time.sleep(wait)
        raise AssertionError("unreachable")


def _error_text(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            return str(err.get("message") or err)
        return str(err)
    return str(getattr(exc, "message", "") or exc)


def _retry_after(exc) -> float | None:
    try:
        value = exc.response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, TypeError, ValueError):
        return None


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "…"


_client_lock = threading.Lock()
_client: tuple[tuple, LLMClient] | None = None


def get_client() -> LLMClient:
    """The process-wide client for the current settings (rebuilt when they change)."""
    global _client
    cfg = settings()
    key = (cfg.openai_api_key, cfg.openai_base_url, cfg.openai_model, LLMOptions.from_settings())
    with _client_lock:
        if _client is None or _client[0] != key:
            _client = (key, LLMClient())
        return _client[1]


def estimate_tokens(text: str) -> int:
    """Rough count without a tokenizer: ~4 characters a token for Latin text, 1 per CJK character."""
    cjk = sum(1 for ch in text if "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff")
    return int((len(text) - cjk) / 4 + cjk + 0.999)
