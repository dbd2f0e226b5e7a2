"""Soak test (issue "Reliability"): many concurrent clients asking a mixed question load
through the service API on the demo corpus, watching errors, latency, the driver's
connection pool and this process's memory at start, middle and end.

Run alone with `python -m bench.soak [--clients 16 --questions 2000]`; `python -m bench`
runs it too. Memory "growth" compares the end with the start measured after a warm-up, so
loading the model and the first vocabulary do not count as a leak.
"""
from __future__ import annotations

import argparse
import gc
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

from bench.measure import percentiles, pool_usage, rss_mb

# (question, mode) over every retrieval mode of the demo corpus, English and Chinese.
DEMO_QUESTIONS = [
    ("Which high-spend suppliers lack a termination clause?", "auto"),
    ("Show me data protection clauses of German healthcare companies", "auto"),
    ("德国医疗公司的数据保护条款", "auto"),
    ("What does Medivance's agreement say about support?", "auto"),
    ("Compare the termination clauses of all suppliers.", "clause_type"),
    ("Clauses of technology suppliers about restoring data after an outage.", "relay"),
    ("Which suppliers in Germany have no liability clause?", "auto"),
    ("penetration testing and encryption of stored records", "hybrid"),
    ("Which suppliers have a force majeure clause?", "auto"),
    ("What comes after the availability clause in Medivance's agreement?", "auto"),
    ("How many suppliers lack a data protection clause?", "auto"),
    ("Liability clauses of logistics companies", "attribute"),
]

GROWTH_MARGIN_MB = 60.0
GROWTH_MARGIN_RATIO = 0.10


@dataclass
class SoakResult:
    clients: int
    questions: int
    errors: int
    error_samples: list[str]
    wall_s: float
    throughput_qps: float
    latency_ms: dict
    rss_mb: dict                  # start (after warm-up), middle, end
    rss_growth_mb: float
    rss_margin_mb: float
    memory_pass: bool
    pool: dict                    # max in-use, max open, pool max size
    answered_nonempty: float      # share of results with evidence
    modes: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.errors == 0 and self.memory_pass


def run_soak(db, clients: int = 16, questions: int = 2000, question_set=None, warmup: int | None = None,
             log=print) -> SoakResult:
    from core.service import ask

    pairs = list(question_set or DEMO_QUESTIONS)
    warmup = len(pairs) * 2 if warmup is None else warmup
    for i in range(warmup):  # model, vocabulary, query plans, connections
        q, mode = pairs[i % len(pairs)]
        ask(q, mode=mode, db=db, log=False)
    gc.collect()
    rss = {"start": rss_mb()}
    latencies: list[float] = []
    errors: list[str] = []
    nonempty = 0
    modes: dict[str, int] = {}
    lock = threading.Lock()
    done = 0
    pool_max = {"in_use": 0, "open": 0, "max_size": None}
    stop = threading.Event()

    def watch_pool():
        while not stop.is_set():
            u = pool_usage(db)
            if u["in_use"] is not None:
                pool_max["in_use"] = max(pool_max["in_use"], u["in_use"])
                pool_max["open"] = max(pool_max["open"], u["open"])
                pool_max["max_size"] = u["max_size"]
            stop.wait(0.05)

    def one(i: int) -> None:
        nonlocal done, nonempty
        q, mode = pairs[i % len(pairs)]
        t0 = time.perf_counter()
        try:
            result = ask(q, mode=mode, db=db, log=False)
            ok_rows = bool(result.evidence)
            used = result.mode
            err = None
        except Exception as exc:  # noqa: BLE001 - every failure is counted and reported
            ok_rows, used, err = False, "error", f"{exc.__class__.__name__}: {str(exc)[:200]}"
        ms = (time.perf_counter() - t0) * 1000
        with lock:
            latencies.append(ms)
            modes[used] = modes.get(used, 0) + 1
            if err:
                errors.append(err)
            nonempty += ok_rows
            done += 1
            if done == questions // 2:
                rss["middle"] = rss_mb()

    watcher = threading.Thread(target=watch_pool, daemon=True)
    watcher.start()
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        list(pool.map(one, range(questions)))
    wall = time.perf_counter() - t0
    stop.set()
    watcher.join(timeout=2)
    gc.collect()
    rss["end"] = rss_mb()
    rss.setdefault("middle", rss["end"])
    growth = round((rss["end"] or 0) - (rss["start"] or 0), 1)
    margin = round(max(GROWTH_MARGIN_MB, GROWTH_MARGIN_RATIO * (rss["start"] or 0)), 1)
    result = SoakResult(clients=clients, questions=questions, errors=len(errors), error_samples=errors[:5],
                        wall_s=round(wall, 2), throughput_qps=round(questions / wall, 2) if wall else 0.0,
                        latency_ms=percentiles(latencies), rss_mb=rss, rss_growth_mb=growth, rss_margin_mb=margin,
                        memory_pass=growth <= margin, pool=pool_max,
                        answered_nonempty=round(nonempty / questions, 3) if questions else 0.0, modes=modes)
    log(f"soak: {questions} questions, {clients} clients: {result.throughput_qps} q/s, "
        f"P95 {result.latency_ms['p95']} ms, errors {result.errors}, RSS {rss['start']} -> {rss['middle']} -> "
        f"{rss['end']} MB (growth {growth} MB, margin {margin} MB), pool in use max {pool_max['in_use']}")
    return result


def load_demo(db, log=print) -> dict:
    from core.cli.ingest_cmd import DEMO_DIR
    from core.ingest.pipeline import ingest_corpus

    report = ingest_corpus(DEMO_DIR, db=db, reset=True)
    log(f"demo corpus loaded: {report.clauses_total} clauses, {len(report.errors)} errors")
    return {"clauses": report.clauses_total, "agreements": report.count("new") + report.count("replaced")
            + report.count("unchanged"), "errors": len(report.errors)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.splitlines()[0])
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--questions", type=int, default=2000)
    args = p.parse_args(argv)
    from bench.instance import open_instance
    from core.graph.db import set_database

    inst = open_instance()
    set_database(inst.db)
    try:
        load_demo(inst.db)
        result = run_soak(inst.db, args.clients, args.questions)
        print(json.dumps(asdict(result), indent=2, ensure_ascii=False))
        return 0 if result.passed else 1
    finally:
        inst.close()


if __name__ == "__main__":
    raise SystemExit(main())
