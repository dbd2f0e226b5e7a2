"""Maintenance queries (reset, counts)."""

WIPE_BATCH = ("MATCH (n) WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS deleted")
NODE_COUNTS = "MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS n ORDER BY label"
REL_COUNTS = "MATCH ()-[r]->() RETURN type(r) AS type, count(*) AS n ORDER BY type"
