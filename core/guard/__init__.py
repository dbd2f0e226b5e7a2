"""The Cypher guard: generated or user-supplied Cypher is lexed, gated and schema-checked before it runs read-only."""
