"""Answers: the cited composer, evidence cards and the subgraph shown beside them."""
