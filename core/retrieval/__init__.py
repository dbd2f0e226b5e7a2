"""Retrieval: the offline planner, one retriever per mode and the search primitives they share."""
