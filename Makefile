# The two commands of the README. Each sets up what is missing on a fresh Debian machine first.
.PHONY: verify demo test bench train train-plain clean

PYTEST_ARGS ?= -n 2

verify:  ## verify the shipped procedures against the latest console release; prints where the HTML report is
	@scripts/bootstrap.sh ""
	.venv/bin/consoleagent verify src/consoleagent/consoles/stratus/suite/documents --release 2026.09 --workers 2 --out verify-report \
		--evaluate --fail-on never

demo:  ## start stratus with a seeded demo account; prints the console URL and the login
	@scripts/bootstrap.sh ""
	.venv/bin/consoleagent demo

test:  ## run the whole test suite (API, console in headless Chromium, CLI, training on tiny models, pgAdmin)
	@scripts/bootstrap.sh test,train
	@scripts/pgadmin-setup.sh
	.venv/bin/ruff check src tests bench
	.venv/bin/lint-imports
	.venv/bin/pytest $(PYTEST_ARGS)

bench:  ## run the quick benchmarks under bench/ (the suite benchmarks: see BENCHMARKS.md)
	@scripts/bootstrap.sh test
	.venv/bin/python bench/bench_api.py
	.venv/bin/python bench/bench_snapshot.py

train:  ## reproduce the ranker's shipped head (both teachers' collections, residual SFT), then GRPO from it (CPU; docs/training.md)
	@scripts/bootstrap.sh test,train
	.venv/bin/consoleagent collect --policy docfollower --tasks split=train --runs 1 --workers 2 --out runs/collect-follower-2
	.venv/bin/consoleagent collect --policy oracle --tasks split=train --runs 1 --workers 2 --out runs/collect
	.venv/bin/consoleagent train sft --policy ranker --config configs/train/ranker-sft-residual.yaml
	.venv/bin/consoleagent train grpo --policy ranker --config configs/train/ranker-grpo-residual.yaml --resume auto

train-plain:  ## the plain-document recipe: oracle collection, SFT keeping seven epochs, the head chosen by validation episodes, GRPO from it (about 2 h on 2 cores; docs/training.md)
	@scripts/bootstrap.sh test,train
	.venv/bin/consoleagent collect --policy oracle --tasks split=train --runs 1 --workers 2 --document-style plain --out runs/collect-plain
	.venv/bin/consoleagent train sft --policy ranker --config configs/train/ranker-sft-plain.yaml
	.venv/bin/consoleagent train select runs/ranker-sft-plain --tasks split=val --document-style plain --workers 2 \
		-O threads=1 -O max_steps=30 --out runs/ranker-sft-plain-select
	.venv/bin/consoleagent train grpo --policy ranker --config configs/train/ranker-grpo-plain-informative.yaml --resume auto

clean:
	rm -rf .venv stratus-demo.db* .pytest_cache verify-report
