"""Ingestion: reading a corpus, cleaning, splitting contracts into clauses, typing them, embedding and loading them."""
