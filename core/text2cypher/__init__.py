"""Text2Cypher: LLM-written Cypher with entity linking, verified examples, a schema summary and a repair loop."""
