"""Benchmarks of ClauseGraph: ingestion, query latency against neo4j-graphrag, concurrency, soak.

`make bench` (= `python -m bench`) runs everything on its own local Neo4j (`var/neo4j-bench`,
port 7690), never on the graph the dashboard shows, and writes `bench/results/latest.json`
and `latest.md`. See `bench/README.md`.
"""
