# ClauseGraph: `make run` opens the dashboard on the demo corpus; `make test` runs the tests;
# `make test-fast` runs the unit tier alone (tests/unit: no database, about a minute).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The tests use their own local Neo4j (separate data folder and port) so they never touch
# the graph `make run` shows. Override to run several test databases side by side.
TEST_NEO4J_HOME ?= $(CURDIR)/var/neo4j-test
TEST_NEO4J_PORT ?= 7688
PYTEST_ARGS ?=

.PHONY: setup browser run test test-fast bench bench-scale demo neo4j-start neo4j-stop clean-data

setup: $(VENV)/.installed neo4j/lib/.resolved

$(VENV)/.installed: requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	@touch $@

neo4j/lib/.resolved: neo4j/pom.xml
	mvn -q -B -f neo4j/pom.xml package
	@touch $@

# Headless Chromium for the end-to-end dashboard test (Debian package; needs root or sudo).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; }

neo4j-start: setup
	$(PY) -m core neo4j start

neo4j-stop:
	$(PY) -m core neo4j stop

demo: neo4j-start
	$(PY) -m core demo --if-empty

run: demo
	$(PY) -m streamlit run app.py

test: setup browser
	@export CLAUSEGRAPH_NEO4J_HOME="$(TEST_NEO4J_HOME)" CLAUSEGRAPH_NEO4J_PORT="$(TEST_NEO4J_PORT)"; \
	unset NEO4J_URI NEO4J_USER NEO4J_PASSWORD NEO4J_DATABASE OPENAI_API_KEY OPENAI_BASE_URL OPENAI_MODEL; \
	was_running=0; $(PY) -m core neo4j status >/dev/null 2>&1 && was_running=1; \
	$(PY) -m core neo4j start || exit 1; \
	$(PY) -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$was_running = 0 ]; then $(PY) -m core neo4j stop; fi; \
	exit $$rc

# The unit tier needs the Python packages only: no Neo4j jars, no server, no browser.
# tests/unit/conftest.py points the Neo4j settings at a closed port and fails any database fixture.
test-fast: $(VENV)/.installed
	@unset NEO4J_URI NEO4J_USER NEO4J_PASSWORD NEO4J_DATABASE OPENAI_API_KEY OPENAI_BASE_URL OPENAI_MODEL; \
	$(PY) -m pytest tests/unit $(PYTEST_ARGS)

bench: setup
	$(PY) -m bench

# Cost growth at 1,000 / 10,000 / 100,000 suppliers: bench/results/scaling.{json,md} (about 40 minutes).
bench-scale: setup
	$(PY) -m bench.scale

clean-data:
	$(PY) -m core neo4j stop || true
	rm -rf var/neo4j var/neo4j-test
