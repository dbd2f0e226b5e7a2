"""neo4j-graphrag doing the retrieval our relay and hybrid modes do, on the same database.

The peer embeds the question with the same model instance (so the query vectors are the
same ones ours uses) and runs the library's VectorCypherRetriever / HybridCypherRetriever
with the retrieval query a user of the library would write (bench.queries).
"""
from __future__ import annotations

import warnings

from bench import queries as bq

RELAY_K = 6          # the product's relay k (core.retrievers.RELAY_K)
RELAY_CANDIDATES = 10  # effective_search_ratio: 60 candidates, like the product's first relay round


def _embedder_class():
    from neo4j_graphrag.embeddings.base import Embedder

    class SameModelEmbedder(Embedder):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def embed_query(self, text: str) -> list[float]:
            return self.inner.encode_one(text)

    return SameModelEmbedder


class Peer:
    def __init__(self, db, embedder):
        from neo4j_graphrag.retrievers import HybridCypherRetriever, VectorCypherRetriever

        emb = _embedder_class()(embedder)
        driver = db.driver()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.vector = VectorCypherRetriever(driver, "clause_embeddings", bq.PEER_RELAY_RETRIEVAL, embedder=emb,
                                                neo4j_database=db.database)
            self.hybrid = HybridCypherRetriever(driver, "clause_embeddings", "clause_text",
                                                bq.PEER_HYBRID_RETRIEVAL, embedder=emb, neo4j_database=db.database)

    def relay(self, text: str, industries=(), countries=()) -> int:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = self.vector.search(query_text=text, top_k=RELAY_K, effective_search_ratio=RELAY_CANDIDATES,
                                     query_params={"industries": list(industries), "countries": list(countries)})
        return len(res.items)

    def hybrid_search(self, text: str) -> int:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = self.hybrid.search(query_text=text, top_k=RELAY_K * 3)
        return len(res.items)
