"""An LLM reads the question into the same typed reading the learned reader gives (not Cypher).

With an LLM configured and `CLAUSEGRAPH_LLM_READER=on`, the model is asked for one JSON object
that follows `READING_SCHEMA` (intent, target, polarity, clause types): closed vocabularies only,
so whatever it says is validated like any other plan and the offline planner still builds the
query. Any failure (no reply in time, not JSON, a value outside the schema) returns None and the
learned reader's reading is used instead; nothing the LLM writes ever reaches the database.
"""
from __future__ import annotations

import json

from core.retrieval.reader import INTENTS, MAX_TYPES, POLARITIES, TARGETS, QuestionReading
from core.text2cypher.llm import LLMClient, LLMError, TokenLedger

READER_TAG = "TASK: READ_QUESTION"


def reading_schema(type_names: list[str]) -> dict:
    """The JSON schema the reply must follow (sent in the prompt and checked on the reply)."""
    return {"type": "object", "additionalProperties": False,
            "required": ["intent", "target", "polarity", "types"],
            "properties": {"intent": {"enum": list(INTENTS)}, "target": {"enum": list(TARGETS)},
                           "polarity": {"enum": list(POLARITIES)},
                           "types": {"type": "array", "maxItems": MAX_TYPES, "items": {"enum": list(type_names)}}}}


def _prompt(question: str, types: list[tuple[str, str]]) -> list[dict]:
    catalogue = "\n".join(f"- {name}: {description}" for name, description in types)
    schema = reading_schema([n for n, _ in types])
    system = (f"{READER_TAG}\nYou read an analyst's question about supplier agreements and say what it asks, as one "
              f"JSON object that follows this JSON schema, and nothing else:\n{json.dumps(schema)}\n"
              "intent: clauses (show clauses of a type), has / lacks (which suppliers have / have no clause of the "
              "type), count, spend_total, spend_ranking, spend_breakdown, spend_change, spend_currency, provision (what "
              "one named supplier's contract says), section (a clause by its number or place), no_agreement (suppliers "
              "without any agreement), suppliers (suppliers by attributes only), other.\n"
              "polarity: lacks when the answer is those without something, has when those with it, none otherwise.\n"
              "types: the clause types the question asks about, named or described (a law used only as a filter is "
              f"no type); [] when none.\nClause types:\n{catalogue}")
    return [{"role": "system", "content": system}, {"role": "user", "content": question}]


def validate_reading(text: str, type_names: list[str]) -> QuestionReading:
    """The reply as a reading, or ValueError naming what broke the schema."""
    try:
        obj = json.loads(text.strip().removeprefix("```json").removeprefix("```").removesuffix("```"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"the reply is not JSON ({exc.msg})") from None
    if not isinstance(obj, dict):
        raise ValueError("the reply is not a JSON object")
    for key, allowed in (("intent", INTENTS), ("target", TARGETS), ("polarity", POLARITIES)):
        if obj.get(key) not in allowed:
            raise ValueError(f"{key} {obj.get(key)!r} is not one of {', '.join(allowed)}")
    types = obj.get("types")
    if not isinstance(types, list) or len(types) > MAX_TYPES or any(t not in type_names for t in types):
        raise ValueError(f"types {types!r} must be at most {MAX_TYPES} names from the taxonomy")
    extra = set(obj) - {"intent", "target", "polarity", "types"}
    if extra:
        raise ValueError(f"unexpected fields {sorted(extra)}")
    types = list(dict.fromkeys(types))
    return QuestionReading(intent=obj["intent"], intent_p=1.0, target=obj["target"], polarity=obj["polarity"],
                           polarity_p=1.0, types=types, type_p={t: 1.0 for t in types},
                           intent_ranking=[(obj["intent"], 1.0)], unsure=False)


def llm_reading(question: str, client: LLMClient | None = None, ledger: TokenLedger | None = None,
                trace: list | None = None) -> QuestionReading | None:
    """The LLM's reading of the question, or None (said in `trace`) when it fails in any way."""
    from core.taxonomy import load_taxonomy

    types = [(t.name, t.description) for t in load_taxonomy() if not t.is_catch_all]
    try:
        client = client or LLMClient()
        reply = client.chat(_prompt(question, types), purpose="read", ledger=ledger, json_mode=True)
        reading = validate_reading(reply, [n for n, _ in types])
    except (LLMError, ValueError) as exc:
        if trace is not None:
            trace.append({"strategy": "llm_reader", "fallback": "learned reader", "why": str(exc)})
        return None
    if trace is not None:
        trace.append({"strategy": "llm_reader", "intent": reading.intent, "types": reading.types,
                      "polarity": reading.polarity})
    return reading
