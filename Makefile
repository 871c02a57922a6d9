# Raffe: `make run` starts everything locally, `make test` installs and runs the suite.
# Both create .venv when it is missing; neither needs root, Docker or a running Redis.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
RUN_STAMP := $(VENV)/.run-stamp
PROTOS := $(sort $(wildcard proto/raffe/v1/*.proto))
GEN    := raffe/v1/.generated-stamp
PYTEST_ARGS ?=
# The suite runs on every core (up to 4), a test file to a worker: most of an end-to-end
# test's time is waiting on timers and other processes. TEST_JOBS=0 runs it in one process.
TEST_JOBS ?= auto

.PHONY: run test lint proto install bench demo clean manifests lock image wheels pin-image

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Tests, linters and benchmarks need the dev tools; `make run` only what running needs.
# The web client's tests use axe-core (accessibility) and openapi-typescript with tsc (the
# API document as a TypeScript client sees it), from the npm registry when npm is there.
# `make lint` formats-checks the web client's JavaScript with prettier.
NPM_TOOLS := axe-core@4.14.1 openapi-typescript@7.13.0 typescript@5.9.3 prettier@3.10.1
PRETTIER  := $(VENV)/npm/node_modules/.bin/prettier
WEB_JS    := gateway/web/*.js gateway/web/games/*.js

# Installs go through constraints.txt: the versions the suite last passed with.
PIN := -c constraints.txt

$(STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q $(PIN) -e '.[dev,decks,cli,local]'
	@if command -v npm >/dev/null 2>&1; then \
	  npm install --silent --no-save --no-package-lock --prefix $(VENV)/npm $(NPM_TOOLS) \
	    || echo "npm: the web client's tools did not install (their tests will say so)"; \
	else echo "npm not found: the accessibility and TypeScript tests are skipped"; fi
	touch $@ $(RUN_STAMP)

# Quietly (-qq: errors only): `make run`'s first start ends with the table's address.
$(RUN_STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install -qq --upgrade pip
	$(BIN)/python -m pip install -qq $(PIN) -e '.[build,cli,local]'
	touch $@

install: $(STAMP)

# constraints.txt afresh: everything pyproject.toml names (every extra), newest releases,
# installed in a scratch environment and listed. Then `make test` before committing it.
lock:
	rm -rf $(VENV)-lock
	$(PYTHON) -m venv $(VENV)-lock
	$(VENV)-lock/bin/python -m pip install -q --upgrade pip
	$(VENV)-lock/bin/python -m pip install -q -e '.[dev,decks,build,cli,local]'
	{ sed -n '1,/^[^#]/{/^#/p}' constraints.txt; \
	  $(VENV)-lock/bin/python -m pip freeze --exclude-editable; } > constraints.new
	mv constraints.new constraints.txt
	rm -rf $(VENV)-lock

# Generated protobuf modules are build output: ignored by git, rebuilt when a .proto changes.
$(GEN): $(PROTOS) | $(RUN_STAMP)
	rm -rf raffe
	mkdir -p raffe/v1
	$(BIN)/python -m grpc_tools.protoc -Iproto --python_out=. --pyi_out=. --grpc_python_out=. $(PROTOS)
	touch raffe/__init__.py raffe/v1/__init__.py $@

proto: $(GEN)

run: proto
	$(BIN)/python -m services.launcher

test: $(STAMP) proto
	$(BIN)/python -m pytest -n $(TEST_JOBS) --maxprocesses 4 --dist loadfile $(PYTEST_ARGS)

lint: $(STAMP) proto
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy services gateway bench tests deploy clients
	$(BIN)/lint-imports  # the floors: pyproject.toml, [tool.importlinter]
	@if [ -x $(PRETTIER) ]; then $(PRETTIER) --check $(WEB_JS); \
	else echo "prettier not installed (needs npm): the web client's format is not checked"; fi
	@awk 'length > 100 { print FILENAME ":" FNR ": longer than 100 characters"; bad = 1 } \
	  END { exit bad }' $(WEB_JS)

# The engines' Kubernetes manifests, one per game of services/games.py, and the alerts as a
# PrometheusRule (tests check both are current).
# It and the demo need what running needs, not the test tools (proto installs that).
manifests: proto
	$(BIN)/python -m deploy.manifests
	$(BIN)/python -m deploy.prometheus_rule

# Pin the production and replicated overlays to a pushed image by its digest:
#   make pin-image REF=registry.example.org/raffe@sha256:...   (deploy/README.md)
pin-image: | $(BIN)/python
	$(BIN)/python -m deploy.pin_image $(REF)

demo: proto
	$(BIN)/python -m services.demo

# The services' image (deploy/docker/Dockerfile), built with podman and runc as root.
# The wheels come from this machine's pip (constraints.txt), so the build needs no registry;
# with BASE unset, the base is made here from Debian's packages (deploy/docker/debian-base.sh).
# podman's default open-files and process limits exceed what this kind of machine allows.
IMAGE   ?= raffe:dev
BASE    ?=
PODMAN  ?= podman --runtime runc
LIMITS   = --ulimit nofile=$$(ulimit -Hn):$$(ulimit -Hn) --ulimit nproc=32768:32768

# Debian 12's Python is 3.11.2: redis-py asks for async-timeout below 3.11.3 (the host's
# newer Python does not), so it is gathered by name.
wheels: | $(BIN)/python
	rm -rf build/wheels
	$(BIN)/python -m pip wheel -q $(PIN) --wheel-dir build/wheels . setuptools grpcio-tools \
	  async-timeout
	rm -f build/wheels/raffe-*.whl

image: wheels
	@base='$(BASE)'; if [ -z "$$base" ]; then \
	  deploy/docker/debian-base.sh python && base=localhost/raffe-base:bookworm; fi; \
	$(PODMAN) build $(LIMITS) --build-arg BASE=$$base -f deploy/docker/Dockerfile -t $(IMAGE) .
	@$(PODMAN) image inspect --format '$(IMAGE): {{.Size}} bytes' $(IMAGE)

bench: $(STAMP) proto
	$(BIN)/python -m bench $(BENCH_ARGS)

clean:
	rm -rf raffe .run .pytest_cache .mypy_cache .ruff_cache
