"""All Cypher of the project, named and parameterized, one module per area.

Nothing outside this package writes Cypher text (pages never do). Values always travel as
`$parameters`; the only interpolated pieces are identifiers chosen by the code itself
(index names, a validated `spend_<year>` property name, a validated vector dimension).
"""
