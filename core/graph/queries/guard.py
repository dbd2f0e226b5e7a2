"""Schema introspection for the Cypher guard (core/guard.py).

The guard checks labels, relationship types, properties and relationship directions against
what the live graph actually holds, so these queries sample the data rather than trusting a
hand-written model. Each type/label is sampled up to `$sample` elements to bound the cost.
"""

LABELS = "CALL db.labels() YIELD label RETURN collect(label) AS labels"
RELATIONSHIP_TYPES = "CALL db.relationshipTypes() YIELD relationshipType RETURN collect(relationshipType) AS types"
PROPERTY_KEYS = "CALL db.propertyKeys() YIELD propertyKey RETURN collect(propertyKey) AS keys"

# Property keys seen on up to $sample nodes of each label.
NODE_PROPERTIES = (
    "CALL db.labels() YIELD label "
    "CALL (label) { MATCH (n:$(label)) WITH n LIMIT $sample "
    "  UNWIND keys(n) AS key RETURN collect(DISTINCT key) AS keys } "
    "RETURN label, keys")

# (start label)-[type]->(end label) patterns and property keys seen on up to $sample
# relationships of each type.
RELATIONSHIP_PATTERNS = (
    "CALL db.relationshipTypes() YIELD relationshipType AS type "
    "CALL (type) { MATCH (a)-[r:$(type)]->(b) WITH a, r, b LIMIT $sample "
    "  RETURN collect(DISTINCT [labels(a), labels(b)]) AS ends, "
    "         reduce(acc = [], ks IN collect(DISTINCT keys(r)) | acc + ks) AS keys } "
    "RETURN type, ends, keys")

# Labels, types and properties that the declared schema (indexes, constraints) names even
# when no data uses them yet (an empty graph right after `ensure_schema`).
DECLARED_SCHEMA = ("SHOW INDEXES YIELD entityType, labelsOrTypes, properties "
                   "WHERE labelsOrTypes IS NOT NULL "
                   "RETURN entityType, labelsOrTypes, properties")
