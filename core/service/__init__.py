"""The service API used by the CLI, the evaluation harness and every dashboard page.

Pages call these functions only; they never see Cypher or the driver. Every question goes
through `ask`, which plans (offline planner, or Text2Cypher when an LLM is configured),
retrieves, composes a cited answer, builds the evidence subgraph and logs the request.

The code lives in focused modules, re-exported here so `from core import service;
service.ask(...)` reads the same everywhere:
  asking         ask, plan_only, the LLM fallback policy
  session_store  follow-up context per conversation
  reports        the compliance-gap report and its heatmap/table data
  explore        lists, one node's neighbourhood, graph counts
  status         database and LLM status
  data           uploads, ingestion, classification review
  quality        the request log and evaluation results, arranged for charts
  auth           login (users, roles, password hashes)
  terms          contract terms: review and corrections, the renewals calendar, playbook deviations
The modules import one another directly, never this package, so no import cycle arises.
"""
from __future__ import annotations

from core.service import auth
from core.service.asking import ALL_MODES, ask, plan_only, stage_timings, warm_start
from core.service.data import (MAX_UPLOAD_BYTES, PreparedUpload, UnsafeArchive, correct_clause_type,
                               correct_clause_types, ingest, prepare_upload, reclassify, review_queue,
                               segmentation_warnings)
from core.service.explore import (NODE_LABELS, CompanyFacets, CompanySpend, agreement_clauses, clause_type_names,
                                  company_facets, company_spend, graph_stats, label_counts, list_agreements, list_clause_types, list_companies,
                                  neighbourhood, spend_currency, spend_years)
from core.service.quality import (EvaluationOverview, EvaluationRun, LatestRun, RequestLogSummary,
                                  evaluation_overview, evaluation_results, percentile, request_log,
                                  request_log_summary)
from core.service.reports import (DEFAULT_REQUIRED, GapHeatmap, GapReport, GapRow, GapSummary, NoAgreementRow,
                                  export_gaps_csv, gap_heatmap, gap_report, gap_summary, gap_table, iter_gap_rows)
from core.service.session_store import SessionStore, sessions
from core.service.status import Status, database_status, llm_status
from core.service.terms import (DEVIATES, FIELD_LABELS as TERM_FIELD_LABELS, FIELDS as TERM_FIELDS, MEETS, NOT_STATED,
                                UNCERTAIN, AgreementDeviations, DeviationReport, PositionCheck, RenewalRow,
                                agreement_terms, correct_term, playbook_deviations, renewal_calendar, renewals_csv,
                                renewals_ics, term_disagreements, term_review_queue)

__all__ = [
    "auth", "ALL_MODES", "ask", "plan_only", "stage_timings", "warm_start",
    "MAX_UPLOAD_BYTES", "PreparedUpload", "UnsafeArchive", "correct_clause_type", "ingest", "prepare_upload",
    "review_queue", "correct_clause_types", "reclassify", "segmentation_warnings",
    "NODE_LABELS", "CompanyFacets", "CompanySpend", "company_spend", "agreement_clauses", "clause_type_names", "company_facets", "graph_stats",
    "label_counts", "list_agreements", "list_clause_types", "list_companies", "neighbourhood", "spend_currency",
    "spend_years",
    "EvaluationOverview", "EvaluationRun", "LatestRun", "RequestLogSummary", "evaluation_overview",
    "evaluation_results", "percentile", "request_log", "request_log_summary",
    "DEFAULT_REQUIRED", "GapHeatmap", "GapReport", "GapRow", "GapSummary", "NoAgreementRow", "export_gaps_csv",
    "gap_heatmap", "gap_report", "gap_summary", "gap_table", "iter_gap_rows",
    "SessionStore", "sessions",
    "Status", "database_status", "llm_status",
    "TERM_FIELDS", "TERM_FIELD_LABELS", "MEETS", "DEVIATES", "NOT_STATED", "UNCERTAIN", "AgreementDeviations",
    "DeviationReport", "PositionCheck", "RenewalRow", "agreement_terms", "correct_term", "playbook_deviations",
    "renewal_calendar", "renewals_csv", "renewals_ics", "term_disagreements", "term_review_queue",
]
