"""A local OpenAI-compatible server with scripted replies, for tests (no network, no mocks).

The real `openai` client in `core.llm` talks to it over HTTP on 127.0.0.1 (random port). It
serves POST /v1/chat/completions and GET /v1/models, records every request (headers and JSON
body), and answers from scripts:

- `server.script("cypher", *replies)` / `server.script("answer", *replies)`: queues per kind of
  request ("cypher" covers generation and repair, told apart from "answer" by the task tag in
  the system prompt);
- `server.on(lambda req: ..., *replies)`: a queue used when its predicate matches the request;
- `server.default = fn(req) -> reply` when no queue has a reply.

A reply is a str (the completion text), a dict with "cypher"/"params"/"steps" (sent as JSON
text), {"status": 429|500|..., "body": ..., "headers": {...}} for an HTTP error,
{"sleep": seconds, "then": reply} to be slow (client timeouts), or a callable(req) -> reply.
"""
from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

ANSWER_TAG = "TASK: ANSWER_FROM_EVIDENCE"


@dataclass
class Request:
    path: str
    headers: dict
    body: dict

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages") or []

    @property
    def system(self) -> str:
        return next((m.get("content") or "" for m in self.messages if m.get("role") == "system"), "")

    @property
    def last_user(self) -> str:
        return next((m.get("content") or "" for m in reversed(self.messages) if m.get("role") == "user"), "")

    @property
    def first_user(self) -> str:
        return next((m.get("content") or "" for m in self.messages if m.get("role") == "user"), "")

    @property
    def kind(self) -> str:
        return "answer" if ANSWER_TAG in self.system else "cypher"

    @property
    def is_repair(self) -> bool:
        return any(m.get("role") == "assistant" for m in self.messages)


@dataclass
class _Route:
    match: Callable[[Request], bool]
    replies: deque


class ScriptedLLM:
    def __init__(self):
        self.requests: list[Request] = []
        self.queues: dict[str, deque] = {"cypher": deque(), "answer": deque()}
        self.routes: list[_Route] = []
        self.default: Callable[[Request], Any] | None = None
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    # -- scripting ---------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def script(self, kind: str, *replies) -> "ScriptedLLM":
        with self._lock:
            self.queues[kind].extend(replies)
        return self

    def on(self, match: Callable[[Request], bool], *replies) -> "ScriptedLLM":
        with self._lock:
            self.routes.append(_Route(match, deque(replies)))
        return self

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.routes.clear()
            for q in self.queues.values():
                q.clear()
            self.default = None

    def of_kind(self, kind: str) -> list[Request]:
        return [r for r in self.requests if r.path.endswith("/chat/completions") and r.kind == kind]

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next_reply(self, req: Request):
        with self._lock:
            for route in self.routes:
                if route.replies and route.match(req):
                    return route.replies.popleft()
            q = self.queues.get(req.kind)
            if q:
                return q.popleft()
        if self.default is not None:
            return self.default(req)
        return {"status": 500, "body": {"error": {"message": f"no scripted reply for a {req.kind} request"}}}

    # -- HTTP ----------------------------------------------------------------------------------
    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, str(v))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass                                   # the client gave up (timeout test)

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model",
                                                                 "created": 0, "owned_by": "tests"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {}
                req = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with server._lock:
                    server.requests.append(req)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found"}})
                    return
                reply = server._next_reply(req)
                while True:
                    if callable(reply):
                        reply = reply(req)
                    elif isinstance(reply, dict) and "sleep" in reply:
                        time.sleep(float(reply["sleep"]))
                        reply = reply.get("then", "")
                    else:
                        break
                if isinstance(reply, dict) and "status" in reply:
                    body = reply.get("body", {"error": {"message": f"scripted HTTP {reply['status']}"}})
                    self._send(int(reply["status"]), body, reply.get("headers"))
                    return
                text = json.dumps(reply) if isinstance(reply, dict) else str(reply)
                prompt = sum(len(str(m.get("content") or "")) for m in req.messages) // 4
                self._send(200, {
                    "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model", "scripted"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": prompt, "completion_tokens": max(1, len(text) // 4),
                              "total_tokens": prompt + max(1, len(text) // 4)}})

        return Handler
