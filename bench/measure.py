"""Timing and memory helpers shared by the benchmark and the soak."""
from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil


def percentiles(samples_ms: list[float]) -> dict:
    """P50/P95/P99 by linear interpolation (numpy's default), plus mean and count."""
    import numpy as np

    if not samples_ms:
        return {"n": 0, "p50": None, "p95": None, "p99": None, "mean": None, "max": None}
    a = np.asarray(samples_ms, dtype=float)
    return {"n": int(a.size), "p50": round(float(np.percentile(a, 50)), 2),
            "p95": round(float(np.percentile(a, 95)), 2), "p99": round(float(np.percentile(a, 99)), 2),
            "mean": round(float(a.mean()), 2), "max": round(float(a.max()), 2)}


def rss_mb(pid: int | None = None) -> float | None:
    try:
        return round(psutil.Process(pid or os.getpid()).memory_info().rss / 2**20, 1)
    except (psutil.Error, OSError):
        return None


_MAPPING = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$")


def heap_resident_mb(pid: int | None, heap_max_mb: float | None, smaps: str | None = None) -> float | None:
    """How much of the JVM's heap is resident: the RSS of the one anonymous mapping the size of
    the heap (-Xmx reserves it whole; committed is not resident until touched). None off Linux,
    or when no mapping matches within 2 %."""
    if not heap_max_mb:
        return None
    if smaps is None:
        try:
            smaps = Path(f"/proc/{pid}/smaps").read_text() if pid else None
        except OSError:
            return None
    if not smaps:
        return None
    best, size, anonymous = None, 0.0, False
    for line in smaps.splitlines():
        m = _MAPPING.match(line)
        if m:
            size = (int(m.group(2), 16) - int(m.group(1), 16)) / 2**20
            anonymous = not m.group(3).strip()
        elif line.startswith("Rss:") and anonymous and abs(size - heap_max_mb) <= 0.02 * heap_max_mb:
            rss = int(line.split()[1]) / 1024
            best = rss if best is None else max(best, rss)
    return None if best is None else round(best, 1)


@dataclass
class MemorySampler:
    """Samples the RSS of this process and of Neo4j in the background; keeps peaks per phase."""

    neo4j_pid: int | None = None
    interval_s: float = 0.25
    peaks: dict = field(default_factory=dict)   # phase -> {"python_mb", "neo4j_mb"}
    phase: str = "setup"

    def __post_init__(self):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="rss-sampler", daemon=True)

    def start(self) -> "MemorySampler":
        self._thread.start()
        return self

    def set_phase(self, phase: str) -> None:
        self.phase = phase

    def _sample(self) -> None:
        py, neo = rss_mb(), rss_mb(self.neo4j_pid) if self.neo4j_pid else None
        for key in (self.phase, "overall"):
            peak = self.peaks.setdefault(key, {"python_mb": 0.0, "neo4j_mb": 0.0})
            if py:
                peak["python_mb"] = max(peak["python_mb"], py)
            if neo:
                peak["neo4j_mb"] = max(peak["neo4j_mb"], neo)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval_s)

    def stop(self) -> dict:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        self._sample()
        return self.peaks


class Stopwatch:
    def __init__(self):
        self.t0 = time.perf_counter()

    def ms(self) -> float:
        return (time.perf_counter() - self.t0) * 1000


def pool_usage(db) -> dict:
    """In-use and open connections of the driver's pool (driver internals; best effort)."""
    try:
        pool = db.driver()._pool
        with pool.lock:
            addresses = list(pool.connections)
            total = sum(len(pool.connections[a]) for a in addresses)
            in_use = sum(1 for a in addresses for c in pool.connections[a] if c.in_use)
        return {"in_use": in_use, "open": total, "max_size": pool.pool_config.max_connection_pool_size}
    except Exception:  # noqa: BLE001 - private API; absent in other driver versions
        return {"in_use": None, "open": None, "max_size": None}


def wait_for_quiet(pid: int | None, max_s: float = 120.0, cpu_pct: float = 15.0, samples: int = 3) -> float:
    """Wait until a process (Neo4j) has been nearly idle for `samples` half-second samples.

    After a bulk load Neo4j keeps merging index segments and sampling statistics for a while;
    a "warm" measurement starts when that is over. Returns the seconds waited (capped)."""
    if not pid:
        return 0.0
    t0 = time.perf_counter()
    try:
        proc = psutil.Process(pid)
        proc.cpu_percent(None)
        quiet = 0
        while quiet < samples and time.perf_counter() - t0 < max_s:
            quiet = quiet + 1 if proc.cpu_percent(interval=0.5) < cpu_pct else 0
    except (psutil.Error, OSError):
        pass
    return round(time.perf_counter() - t0, 1)


def cpu_seconds(pid: int | None = None) -> float | None:
    """CPU seconds (user + system, all threads) a process has used: this one (the product's
    Python side) when `pid` is None, else another one, e.g. Neo4j (psutil reads /proc/<pid>/stat)."""
    if pid is None:
        return time.process_time()
    try:
        t = psutil.Process(pid).cpu_times()
        return t.user + t.system
    except (psutil.Error, OSError):
        return None


def cpu_ceiling(cpu_ms_per_question: float | None, cores: int | None = None) -> float | None:
    """Questions per second the machine could serve if every core did nothing but answer:
    cores / CPU seconds one question costs (Python + Neo4j). Unlike cores / wall time it does
    not count waiting (network, locks, an idle core during a single-threaded stage) as cost."""
    if not cpu_ms_per_question:
        return None
    return round((cores or os.cpu_count() or 1) / (cpu_ms_per_question / 1000), 1)
