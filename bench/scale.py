"""`python -m bench.scale` (`make bench-scale`): how cost grows from 1,000 to 100,000 suppliers.

The same generator, loader and questions as `python -m bench`, run at several corpus sizes on
the benchmark's own Neo4j, one size after the other (the graph is wiped between sizes). Per
size: ingest write throughput, P50/P95 per mode with the neo4j-graphrag peer beside relay and
hybrid, the gap report (the dashboard's summary and the full report), throughput under 8 and 16
clients next to the ceiling the machine allows, Neo4j store size, heap and page cache in use,
and the Python process's RSS. The growth of each figure between sizes is fitted as
cost ~ size^b (b per step), so "linear" (b = 1) and "flat" (b = 0) read off directly.

The largest size uses fewer clauses per agreement (2 instead of 10) so that it fits the
machine's time; the table says so. A size that breaks is recorded with what broke.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import sys
import time
import traceback
from pathlib import Path

from bench.run import (CACHE_DIR, RESULTS_DIR, WORK_DIR, load_large, log, measure_concurrency, measure_embed,
                       measure_gap, measure_queries, share_of_ceilings, subset_corpus, throughput_ceilings,
                       _git_revision, _neo4j_version)

DEFAULT_SIZES = "1000:10,10000:10,100000:2"   # suppliers:clauses per agreement
GROWTH_KEYS = [("write clauses/s", ("write_clauses_per_s",)),
               ("gap summary P95 ms", ("gap_summary_ms", "p95")),
               ("gap full report P95 ms", ("gap_full_ms", "p95")),
               ("store MB", ("store_mb",)),
               ("Python RSS MB", ("python_rss_mb",))]


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default=DEFAULT_SIZES,
                   help=f"comma-separated suppliers:clauses_per_agreement (default {DEFAULT_SIZES})")
    p.add_argument("--reps", type=int, default=40, help="timed questions per mode and size")
    p.add_argument("--gap-reps", type=int, default=5)
    p.add_argument("--concurrent-questions", type=int, default=120)
    p.add_argument("--embed-sample", type=int, default=30)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--reuse-loaded", action="store_true",
                   help="when the benchmark database already holds a size's graph (same companies and clauses), "
                        "measure it without reloading and carry that size's ingest figures over from the "
                        "previous scaling.json, marked as such (saves the ~25 min load at 100,000 suppliers)")
    p.add_argument("--out", default=str(RESULTS_DIR))
    p.add_argument("--work-dir", default=str(WORK_DIR))
    p.add_argument("--cache-dir", default=str(CACHE_DIR))
    a = p.parse_args(argv)
    a.sizes = [tuple(int(x) for x in s.split(":")) for s in a.sizes.split(",") if s.strip()]
    return a


def _dir_mb(path: Path) -> float | None:
    if not path.exists():
        return None
    total = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return round(total / 2**20, 1)


def _jvm_memory(db) -> dict:
    """Heap and page cache in use, from the server's own JMX beans (the benchmark's instance only)."""
    from bench.queries import JVM_MEMORY, PAGE_CACHE

    out: dict = {}
    try:
        mem = db.read(JVM_MEMORY)
        if mem:
            m = mem[0]
            out["heap_used_mb"] = round(m["used"] / 2**20, 1)
            out["heap_committed_mb"] = round(m["committed"] / 2**20, 1)
            out["heap_max_mb"] = round(m["max"] / 2**20, 1)
            out["non_heap_committed_mb"] = round(m["non_heap_committed"] / 2**20, 1)
            out["direct_buffers_mb"] = round(m["direct_used"] / 2**20, 1)
    except Exception as exc:  # noqa: BLE001 - reported, not fatal
        out["heap_error"] = f"{exc.__class__.__name__}: {str(exc)[:160]}"
    try:
        pc = db.read(PAGE_CACHE)
        if pc:
            out.update({k: v for k, v in pc[0].items() if v is not None})
    except Exception as exc:  # noqa: BLE001
        out["page_cache_error"] = f"{exc.__class__.__name__}: {str(exc)[:160]}"
    return out


def page_cache_estimate_mb(neo4j_rss_mb: float | None, jvm: dict) -> float | None:
    """The page cache in use, estimated: Neo4j's resident memory less the resident heap, the
    JVM's committed non-heap (metaspace, code cache) and direct buffers. The page cache is native
    memory that grows as pages are read, and Community has no bean for it; what else is native
    (thread stacks, libraries, allocator slack) is counted in, so this is an upper estimate."""
    parts = [jvm.get("heap_resident_mb"), jvm.get("non_heap_committed_mb"), jvm.get("direct_buffers_mb")]
    if neo4j_rss_mb is None or any(p is None for p in parts):
        return None
    return round(max(0.0, neo4j_rss_mb - sum(parts)), 1)


def measure_gap_views(db, reps: int) -> dict:
    """The dashboard's summary (totals + first page) and the full report, timed separately."""
    g = measure_gap(db, reps)
    return {"gap_summary_ms": g["latency_ms"], "gap_full_ms": g["full_report_ms"], "companies": g["companies"],
            "companies_with_gaps": g["companies_with_gaps"], "full_rows": g["full_rows"]}


def measure_size(db, inst, suppliers: int, clauses: int, args) -> dict:
    import psutil

    from bench.embedcache import ProxyEmbedder, load_cache
    from bench.generate import generate
    from bench.measure import heap_resident_mb, rss_mb, wait_for_quiet
    from core.embeddings import get_embedder

    work = Path(args.work_dir)
    entry: dict = {"suppliers": suppliers, "clauses_per_agreement": clauses}
    log(f"== {suppliers:,} suppliers x {clauses} clauses")
    gen = generate(work / f"corpus-s{args.seed}-n{suppliers}-c{clauses}", suppliers, clauses, args.seed)
    entry["clauses"] = gen.clauses
    # checked before anything touches the database: the embed measurement below wipes it
    load = _reused_load(db, suppliers, gen.clauses, args) if args.reuse_loaded else None
    if load is None:
        sample_dir = subset_corpus(Path(gen.path), work / "scale-sample", min(args.embed_sample, suppliers))
        model = get_embedder().model_name
        cache_path = Path(args.cache_dir) / f"bench-{gen.key}-{model}-sample{args.embed_sample}.npy"
        measure_embed(db, sample_dir, cache_path)
        proxy = ProxyEmbedder(load_cache(cache_path, model) or {}, get_embedder())
        load = load_large(db, Path(gen.path), proxy)
    entry["ingest"] = load
    entry["write_clauses_per_s"] = load["clauses_per_s"].get("write")
    entry["ingest_clauses_per_s"] = load["clauses_per_s"].get("total")
    wait_for_quiet(inst.pid)
    entry["queries"] = measure_queries(db, args.reps, args.seed, neo4j_pid=inst.pid)
    entry.update(measure_gap_views(db, args.gap_reps))
    # ceilings from the single-client run: cores / wall time and cores / CPU time per question
    entry["throughput"] = {**throughput_ceilings(entry["queries"]), "clients": {}}
    for clients in (8, 16):
        c = measure_concurrency(db, clients, args.concurrent_questions, args.seed, neo4j_pid=inst.pid)
        c.update(share_of_ceilings(c["throughput_qps"], entry["throughput"]))
        entry["throughput"]["clients"][str(clients)] = c
    entry["store_mb"] = _dir_mb(Path(inst.local.cfg.home) / "data")
    entry["jvm"] = _jvm_memory(db)
    entry["python_rss_mb"] = rss_mb()
    entry["neo4j_rss_mb"] = rss_mb(inst.pid)
    entry["jvm"]["heap_resident_mb"] = heap_resident_mb(inst.pid, entry["jvm"].get("heap_max_mb"))
    entry["jvm"]["page_cache_in_use_estimate_mb"] = page_cache_estimate_mb(entry["neo4j_rss_mb"], entry["jvm"])
    entry["machine_available_mb"] = round(psutil.virtual_memory().available / 2**20)
    return entry


def _keep_unmeasured_sizes(res: dict, args) -> None:
    """With --reuse-loaded, sizes this run did not measure stay in the table from the previous run,
    each marked with the run it comes from, so the growth table keeps its three sizes."""
    if not (args.reuse_loaded and args.previous):
        return
    measured = {(s["suppliers"], s.get("clauses_per_agreement")) for s in res["sizes"]}
    for size in args.previous.get("sizes", []):
        if (size.get("suppliers"), size.get("clauses_per_agreement")) not in measured:
            res["sizes"].append({**size, "from_run": size.get("from_run") or args.previous.get("generated_at")})
            res["notes"].append(f"{size.get('suppliers'):,} suppliers: figures from the run of "
                                f"{res['sizes'][-1]['from_run']} (not measured again in this run).")


def _reused_load(db, suppliers: int, clauses: int, args) -> dict | None:
    """The previous run's ingest figures for this size, when the database still holds exactly that
    graph: queries are then measured on it as loaded, and the entry says where its ingest came from."""
    from core.ingest.pipeline import graph_counts

    counts = graph_counts(db)
    if counts.get("companies") != suppliers or counts.get("clauses") != clauses:
        return None
    previous = args.previous or {}
    for size in previous.get("sizes", []):
        if size.get("suppliers") == suppliers and size.get("clauses") == clauses and size.get("ingest"):
            log(f"  reusing the loaded graph ({suppliers:,} suppliers, {clauses:,} clauses)")
            return {**size["ingest"], "reused_from": previous.get("generated_at")}
    return None


def _get(d: dict, path: tuple):
    for k in path:
        if not isinstance(d, dict) or d.get(k) is None:
            return None
        d = d[k]
    return d


def growth(sizes: list[dict]) -> list[dict]:
    """b in cost ~ size^b between consecutive sizes (by clauses, the unit most costs scale with)."""
    out = []
    ok = sorted((s for s in sizes if "error" not in s), key=lambda s: s["clauses"])   # any run order
    for a, b in zip(ok, ok[1:]):
        row = {"from": a["suppliers"], "to": b["suppliers"], "exponents": {}}
        ratio = b["clauses"] / a["clauses"]
        figures = list(GROWTH_KEYS) + [(f"{m} P95 ms", ("queries", m, "ours", "p95")) for m in a.get("queries", {})]
        for name, path in figures:
            va, vb = _get(a, path), _get(b, path)
            if va and vb and ratio > 1:
                row["exponents"][name] = round(math.log(vb / va) / math.log(ratio), 2)
        out.append(row)
    return out


def _or_dash(value) -> str:
    return "—" if value is None else f"{value}"


def markdown(res: dict) -> str:
    lines = [f"# ClauseGraph scaling benchmark — {res['generated_at']}", "",
             f"Machine: {res['machine']['cpus']} CPU cores, {res['machine']['ram_gb']} GB RAM; Neo4j "
             f"{res.get('neo4j_version') or '?'} (heap {res['neo4j']['heap']}, page cache {res['neo4j']['pagecache']}). "
             f"Wall time {res['wall_s'] / 60:.1f} min.", ""]
    sizes = res["sizes"]
    modes = sorted({m for s in sizes for m in s.get("queries", {})})
    head = ["suppliers", "clauses", "write cl/s"] + [f"{m} P50/P95" for m in modes] + \
        ["relay 1st stage/peer P95", "hybrid 1st stage/peer P95", "gap summary P95", "gap full P95", "8 cl. q/s", "16 cl. q/s",
         "ceiling q/s", "CPU ceiling q/s", "8 cl. share wall/CPU", "store MB", "heap MB", "page cache MB (est.)", "Python RSS MB"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    for s in sizes:
        if "error" in s:
            lines.append(f"| {s['suppliers']:,} | — | failed: {s['error'][:120]} |")
            continue
        q = s["queries"]
        cells = [f"{s['suppliers']:,}" + (f" (run of {s['from_run']})" if s.get("from_run") else ""), f"{s['clauses']:,} ({s['clauses_per_agreement']}/agr.)",
                 f"{s.get('write_clauses_per_s') or '—'}"
                 + (f" (load of {s['ingest']['reused_from']})" if (s.get("ingest") or {}).get("reused_from") else "")]
        cells += [f"{q[m]['ours']['p50']}/{q[m]['ours']['p95']}" if m in q else "—" for m in modes]
        cells += [f"{q[m].get('ratio_p95', '—')}x" if m in q else "—" for m in ("relay", "hybrid")]
        cells += [f"{s['gap_summary_ms']['p95']}", f"{s['gap_full_ms']['p95']}",
                  f"{s['throughput']['clients']['8']['throughput_qps']}",
                  f"{s['throughput']['clients']['16']['throughput_qps']}", f"{s['throughput']['ceiling_qps']}",
                  f"{s['throughput'].get('cpu_ceiling_qps') or '—'}",
                  f"{s['throughput']['clients']['8'].get('share_of_ceiling') or '—'}/"
                  f"{s['throughput']['clients']['8'].get('share_of_cpu_ceiling') or '—'}",
                  f"{s.get('store_mb')}", f"{s['jvm'].get('heap_used_mb', '—')}",
                  _or_dash(s["jvm"].get("page_cache_in_use_estimate_mb")),
                  f"{s.get('python_rss_mb')}"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Growth between sizes, as b in cost ~ clauses^b (1 = linear, 0 = flat; throughput: "
              "negative b means it falls):", ""]
    for g in res["growth"]:
        lines.append(f"- {g['from']:,} → {g['to']:,}: " + ", ".join(f"{k} b={v}" for k, v in g["exponents"].items()))
    lines += ["", *[f"- {n}" for n in res["notes"]], ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import psutil

    from bench.instance import bench_neo4j_settings, open_instance
    from core.graph.db import set_database

    t0 = time.perf_counter()
    cfg = bench_neo4j_settings()
    res: dict = {"generated_at": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                 "git_revision": _git_revision(),
                 "machine": {"cpus": os.cpu_count(), "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
                             "platform": platform.platform(), "python": platform.python_version()},
                 "neo4j": {"heap": cfg.heap, "pagecache": cfg.pagecache},
                 "config": {k: v for k, v in vars(args).items() if k not in {"out", "work_dir", "cache_dir", "previous"}},
                 "sizes": [], "notes": []}
    try:   # read before this run overwrites it: --reuse-loaded carries its ingest figures over
        args.previous = json.loads((Path(args.out) / "scaling.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        args.previous = None
    inst = open_instance(log)
    set_database(inst.db)
    try:
        res["neo4j_version"] = _neo4j_version(inst.db)
        for suppliers, clauses in args.sizes:
            try:
                res["sizes"].append(measure_size(inst.db, inst, suppliers, clauses, args))
            except Exception as exc:  # noqa: BLE001 - a size that breaks is recorded, the others still run
                log(f"size {suppliers} failed: {exc}")
                res["sizes"].append({"suppliers": suppliers, "clauses_per_agreement": clauses,
                                     "error": f"{exc.__class__.__name__}: {exc}",
                                     "trace": traceback.format_exc()[-2000:]})
            _write(res, args, t0)
    finally:
        inst.close()
    _keep_unmeasured_sizes(res, args)
    res["notes"] += [
        "Embeddings: each size embeds a sample of agreements for real and loads the rest with the sample's cached "
        "vectors plus small noise (bench/embedcache.py), as `make bench` does: index size and shape are real.",
        "Ceiling q/s = CPU cores / single-client mean service time (the mean over the modes measured alone): "
        "what the machine could serve if nothing queued; the share of it reached under 8 and 16 clients is "
        "in scaling.json. CPU ceiling q/s = CPU cores / CPU seconds per question in the single-client run "
        "(this process's CPU time plus Neo4j's utime + stime from /proc): waiting is not counted as cost, "
        "so it is the tighter bound; '8 cl. share' is the throughput under 8 clients over each ceiling.",
        "gap summary = totals, spend at risk and the first page ranked by spend at risk (what the Compliance "
        "gaps page shows first); gap full = every supplier's row (the export streams the same rows).",
        "page cache MB (est.) = Neo4j's RSS less its resident heap (the heap mapping's RSS in /proc/PID/smaps), "
        "committed non-heap and direct buffers, read "
        "after the size's questions: Neo4j 5 Community has no page-cache bean, and the page cache is native "
        "memory that grows as pages are read (capped by the configured size); other native memory is "
        "counted in, so it is an upper estimate."]
    _write(res, args, t0)
    print(markdown(res))
    return 0


def _write(res: dict, args, t0: float) -> None:
    res["wall_s"] = round(time.perf_counter() - t0, 1)
    res["sizes"].sort(key=lambda s: (s["suppliers"], s.get("clauses_per_agreement", 0)))
    res["growth"] = growth(res["sizes"])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "scaling.json").write_text(json.dumps(res, indent=1, default=str), encoding="utf-8")
    (out / "scaling.md").write_text(markdown(res), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
