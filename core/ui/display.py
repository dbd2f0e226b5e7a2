"""Showing results: query parameters as readable JSON and subgraphs as interactive graphs.

Nothing here builds Cypher; the graph is drawn from the {nodes, edges} the service returns.
"""
from __future__ import annotations

import html
import json
import re
from typing import Any

import streamlit as st

LABEL_COLOURS = {
    "Company": "#1f6feb",
    "SLA": "#8250df",
    "Clause": "#2da44e",
    "ClauseType": "#d4a72c",
    "Address": "#6e7781",
}
EDGE_STYLES = {
    "NEXT": {"color": "#2da44e", "dashes": False, "width": 2},
    "MISSING": {"color": "#cf222e", "dashes": True, "width": 2},
    "OF_TYPE": {"color": "#b08800", "dashes": False, "width": 1},
}


def short_params(params: dict | None, max_list: int = 12) -> dict:
    """Parameters for display: vectors become '<vector of N floats>', long lists are cut."""
    out: dict[str, Any] = {}
    for k, v in (params or {}).items():
        if hasattr(v, "tolist"):
            v = v.tolist()
        if isinstance(v, (list, tuple)) and len(v) > 16 and all(isinstance(x, (int, float)) for x in v[:8]):
            out[k] = f"<vector of {len(v)} floats: {', '.join(f'{x:.3f}' for x in v[:3])}, …>"
        elif isinstance(v, (list, tuple)) and len(v) > max_list:
            out[k] = list(v[:max_list]) + [f"… {len(v) - max_list} more"]
        elif isinstance(v, dict):
            out[k] = short_params(v, max_list)
        else:
            out[k] = v
    return out


def params_json(params: dict | None) -> str:
    return json.dumps(short_params(params), indent=2, ensure_ascii=False, default=str)


def _hover(props: dict) -> str:
    lines = []
    for k, v in props.items():
        if k in {"embedding", "id"} and isinstance(v, list):
            continue
        text = str(v)
        if len(text) > 160:
            text = text[:157] + "…"
        lines.append(f"{k}: {text}")
    return "\n".join(lines)


_CDN_TAGS = re.compile(r"<link[^>]+cdn\.jsdelivr\.net[^>]*/>|<script\s+src=\"https://cdn\.jsdelivr\.net[^>]*>\s*</script>",
                       re.S)
_EMPTY_HEADING = re.compile(r"<center>\s*<h1>\s*</h1>\s*</center>", re.S)


NODE_FONT_PX = 16          # readable at 100% zoom on a laptop with 6-10 evidence items
EDGE_FONT_PX = 13
MIN_LABEL_PX = 10          # a graph fitted smaller than this zooms in to it instead (pan for the rest)

# After the layout settles vis-network fits the whole graph into the frame, which shrinks the labels of
# a big neighbourhood to a few pixels: zoom back in to the legible minimum around the same centre.
# `graphReady` tells a reader (and the browser test) that the final view is drawn.
_LEGIBLE_ZOOM = """<script>
(function () {
  var minScale = %(min_scale).4f;
  function settle() {
    if (network.getScale() < minScale) { network.moveTo({scale: minScale}); }
    window.graphReady = true;
  }
  if (typeof network !== "undefined" && network) {
    network.once("stabilized", settle);
    setTimeout(function () { if (!window.graphReady) { settle(); } }, 5000);
  }
  else { window.graphReady = true; }
})();
</script>
"""
EXPLORE_NODE_CAP = 40      # Explore draws this many nodes first; "show more" adds as many again


def limit_nodes(subgraph: dict, max_nodes: int) -> tuple[dict, int]:
    """The first `max_nodes` nodes (the neighbourhood lists them nearest first) and the edges
    between them, with how many nodes were left out: a capped graph stays legible."""
    nodes = subgraph.get("nodes") or []
    if len(nodes) <= max_nodes:
        return subgraph, 0
    kept = nodes[:max_nodes]
    ids = {str(n.get("id")) for n in kept}
    edges = [e for e in subgraph.get("edges") or [] if str(e.get("source")) in ids and str(e.get("target")) in ids]
    return {"nodes": kept, "edges": edges}, len(nodes) - max_nodes


def graph_html(subgraph: dict, height: int = 460, labels: bool = True) -> str:
    """Self-contained pyvis HTML (vis-network inlined: works offline) for a {nodes, edges} graph.

    Nodes are coloured by label; the hover title lists the node's properties; edges carry
    their relationship type, with NEXT (green) and MISSING (red, dashed) stood out.
    """
    from pyvis.network import Network

    net = Network(height=f"{height}px", width="100%", directed=True, cdn_resources="in_line",
                  bgcolor="#ffffff", font_color="#1f2328")
    nodes = subgraph.get("nodes") or []
    known = set()
    for n in nodes:
        nid = str(n.get("id"))
        if nid in known:
            continue
        known.add(nid)
        label = n.get("label") or "Node"
        props = dict(n.get("props") or {k: v for k, v in n.items() if k not in {"id", "label", "name"}})
        props = {"label": label, "name": n.get("name"), **props}
        name = str(n.get("name") or nid)
        shown = name if len(name) <= 28 else name[:26] + "…"
        big = label in {"Company", "SLA"}
        net.add_node(nid, label=shown if labels else " ", title=_hover(props), color=LABEL_COLOURS.get(label, "#57606a"),
                     shape="dot", size=18 if big else 12,
                     font={"size": NODE_FONT_PX + (2 if big else 0), "face": "sans-serif", "color": "#1f2328",
                           "strokeWidth": 3, "strokeColor": "#ffffff"})
    for e in subgraph.get("edges") or []:
        a, b = str(e.get("source")), str(e.get("target"))
        if a not in known or b not in known:
            continue
        typ = str(e.get("type") or "")
        style = EDGE_STYLES.get(typ, {"color": "#8c959f", "dashes": False, "width": 1})
        net.add_edge(a, b, label=typ if labels else None, title=typ, arrows="to",
                     font={"size": EDGE_FONT_PX, "align": "middle", "strokeWidth": 3, "strokeColor": "#ffffff",
                           "color": "#57606a"}, **style)
    net.set_options(json.dumps({
        "physics": {"solver": "forceAtlas2Based", "stabilization": {"iterations": 150},
                    "forceAtlas2Based": {"springLength": 90, "gravitationalConstant": -60}},
        "interaction": {"hover": True, "tooltipDelay": 120, "navigationButtons": False},
        "edges": {"smooth": {"type": "dynamic"}},
    }))
    out = net.generate_html(notebook=False)
    out = _CDN_TAGS.sub("", out)
    out = _EMPTY_HEADING.sub("", out)
    out = out.replace("border: 1px solid lightgray;", "border: 1px solid #d0d7de; border-radius: 6px;")
    zoom = _LEGIBLE_ZOOM % {"min_scale": MIN_LABEL_PX / NODE_FONT_PX}
    return out.replace("</body>", zoom + "</body>", 1) if "</body>" in out else out + zoom


def render_graph(subgraph: dict, height: int = 460, labels: bool = True) -> None:
    """Draw a subgraph in the page, with a legend; says so plainly when there is none."""
    if not (subgraph or {}).get("nodes"):
        st.info("No graph for this result.", icon=":material/hub:")
        return
    # st.iframe replaces the deprecated components.v1.html; the HTML is ours (pyvis template,
    # node data JSON-escaped by Jinja's tojson, tooltips rendered as text by vis-network)
    st.iframe(graph_html(subgraph, height, labels), height=height + 14,
              alt=f"Graph of {len(subgraph['nodes'])} nodes and {len(subgraph.get('edges') or [])} edges")
    legend = " ".join(
        f"<span style='color:{c}'>●</span>&nbsp;{html.escape(lbl)}" for lbl, c in LABEL_COLOURS.items())
    st.caption(legend + " &nbsp; <span style='color:#2da44e'>→</span> NEXT &nbsp; "
               "<span style='color:#cf222e'>⇢</span> MISSING", unsafe_allow_html=True)
