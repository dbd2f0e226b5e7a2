"""The graph layer: the Neo4j driver, the local server, schema, the vocabulary cache and all Cypher (queries/)."""
