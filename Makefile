# The two commands of the README. Each sets up what is missing on a fresh Debian machine first.
.PHONY: demo test bench clean

PYTEST_ARGS ?= -n 2

demo:  ## start stratus with a seeded demo account; prints the console URL and the login
	@scripts/bootstrap.sh test
	.venv/bin/consoleagent demo

test:  ## run the whole test suite (API, console in headless Chromium, CLI, training on tiny models)
	@scripts/bootstrap.sh test,train
	.venv/bin/ruff check src tests bench
	.venv/bin/pytest $(PYTEST_ARGS)

bench:  ## run the quick benchmarks under bench/ (the suite benchmarks: see BENCHMARKS.md)
	@scripts/bootstrap.sh test
	.venv/bin/python bench/bench_api.py
	.venv/bin/python bench/bench_snapshot.py

clean:
	rm -rf .venv stratus-demo.db* .pytest_cache
