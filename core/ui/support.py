"""What pages and app.py import as `ui_support`: one call at the top of every page, the
navigation, and display helpers. The code lives in focused modules:
  navigation  login, roles and the app's `st.navigation`
  page        `page_setup`, the sidebar status, cached lists, database-outage messages
  display     query parameters as JSON, subgraphs as interactive graphs
Nothing in core/ui builds Cypher; everything comes from `core.service`.
"""
from __future__ import annotations

from core.ui.display import (EDGE_STYLES, EXPLORE_NODE_CAP, LABEL_COLOURS, graph_html, limit_nodes, params_json,
                             render_graph, short_params)
from core.ui.navigation import (APP_NAME, PAGES, SESSION_USER_KEY, auth_enabled, current_user, is_admin, login_form,
                                logout, navigation)
from core.ui.page import (LIST_TTL_S, STATUS_TTL_S, PageContext, PageStopped, clear_caches, database_status,
                          page_setup, show_database_error, warm_start)

__all__ = ["EDGE_STYLES", "EXPLORE_NODE_CAP", "LABEL_COLOURS", "graph_html", "limit_nodes", "params_json", "render_graph", "short_params",
           "APP_NAME", "PAGES", "SESSION_USER_KEY", "auth_enabled", "current_user", "is_admin", "login_form",
           "logout", "navigation", "LIST_TTL_S", "STATUS_TTL_S", "PageContext", "PageStopped", "clear_caches",
           "database_status", "page_setup", "show_database_error", "warm_start"]
