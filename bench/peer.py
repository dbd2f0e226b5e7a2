"""neo4j-graphrag doing the retrieval our relay and hybrid modes do, on the same database.

The peer embeds the question with the same loaded model, the way the library's
SentenceTransformerEmbeddings does (so the query vectors are the same ones ours uses), and
runs the library's VectorCypherRetriever / HybridCypherRetriever
with the retrieval query a user of the library would write (bench.queries).
"""
from __future__ import annotations

import time
import warnings

from bench import queries as bq

RELAY_K = 6               # the product's relay k (core.retrievers.RELAY_K)
RELAY_FIRST_CANDIDATES = 60  # the product's first relay round without a filter share (6 x 10)


def _embedder_class():
    from neo4j_graphrag.embeddings.base import Embedder

    class SameModelEmbedder(Embedder):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner
            self.last_ms = 0.0  # the latest embedding's time, so reports can split embed / retrieval

        def embed_query(self, text: str) -> list[float]:
            t0 = time.perf_counter()
            # what the library's SentenceTransformerEmbeddings.embed_query does, on the same loaded
            # model: `SentenceTransformer.encode([text])`, flattened. Never our embedder's own path
            # (nor vectors our planner kept): the peer pays its own embedding, as in its own process
            model = getattr(self.inner, "model", None)   # a remote endpoint: its one client call
            vector = (model.encode([text]).flatten() if model is not None else self.inner.encode([text])[0]).tolist()
            self.last_ms = (time.perf_counter() - t0) * 1000
            return vector

    return SameModelEmbedder


class Peer:
    def __init__(self, db, embedder):
        from neo4j_graphrag.retrievers import HybridCypherRetriever, VectorCypherRetriever

        emb = self.embedder = _embedder_class()(embedder)
        driver = db.driver()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.vector = VectorCypherRetriever(driver, "clause_embeddings", bq.PEER_RELAY_RETRIEVAL, embedder=emb,
                                                neo4j_database=db.database)
            self.hybrid = HybridCypherRetriever(driver, "clause_embeddings", "clause_text",
                                                bq.PEER_HYBRID_RETRIEVAL, embedder=emb, neo4j_database=db.database)

    def relay(self, text: str, industries=(), countries=(), total: int | None = None) -> int:
        """The equivalent of our relay with the library: it cuts the vector hits to `top_k` before
        the retrieval query filters them (one round returned 0.3 of 6 clauses on average), so, as
        a user wanting k filtered clauses would, grow `top_k` x4 until k survive. The question is
        embedded once; every round reuses the vector."""
        vector = self.embedder.embed_query(text)
        candidates = RELAY_FIRST_CANDIDATES
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            while True:
                res = self.vector.search(query_vector=vector, top_k=candidates, effective_search_ratio=1,
                                         query_params={"industries": list(industries), "countries": list(countries)})
                if len(res.items) >= RELAY_K or total is None or candidates >= total:
                    return len(res.items[:RELAY_K])
                candidates = min(candidates * 4, total)

    def hybrid_search(self, text: str) -> int:
        """Equivalent work: ours reads `core.search.DEFAULT_CANDIDATES` hits from each index before
        fusing them (then keeps 6, at most 2 per agreement); the peer reads as many."""
        from core.retrieval.search import DEFAULT_CANDIDATES

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = self.hybrid.search(query_text=text, top_k=DEFAULT_CANDIDATES)
        return len(res.items)
