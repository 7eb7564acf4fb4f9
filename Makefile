# The README's two commands: `make run` and `make test`. Each creates the virtual
# environment when needed and installs what it needs; nothing else has to be known.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEALS ?= 1e6
# The games beside the deal run: the four profiles in all six circular orders round the table
# (the order moves their totals, so one seating alone would not be a fair comparison), turned
# so that every profile holds every seat, all on the same deals (one seed). GAMES per
# seating: 10k gives the choice and doubling values about ±3 points per game and the win
# rates about ±0.4 points of % (95% CI).
GAMES ?= 10000
GAME_SEED ?= 1
# The ladder's whole-game rungs: games of each heuristic profile against expert, and of each
# search step of the expert's game against expert-fitted (seven two-profile tournaments). Every
# game seats a profile that searches at every decision: 600 games each cost about 2 minutes
# of CPU in all and give the distances about ±19 points per game (95% CI).
LADDER_GAMES ?= 600
# Under strong play (the report's last section): the strongest card play (`expert`) in every
# seat on the run's first STRONG_DEALS deals, and whole games of the strongest player beside
# itself choosing at random and never doubling, in the three circular orders of those four
# seats, STRONG_GAMES each on the games' seed. Sized to the time left in `make run`'s budget
# (the report says the intervals they give; docs/REPORT.md how to make them tighter).
STRONG_DEALS ?= 800
STRONG_GAMES ?= 240
STRONG_SEATINGS := expert,expert,expert-randomchoice,expert-nodouble \
	expert,expert-randomchoice,expert,expert-nodouble \
	expert,expert,expert-nodouble,expert-randomchoice
# The main job's seeds are fixed, so that two users' `make run` (and the figures the docs
# quote from it) agree card for card; a command given no --seed still draws one.
RUN_SEED ?= 1
SEATINGS := basic,basic-randomchoice,basic-nodouble,advanced \
	basic,basic-randomchoice,advanced,basic-nodouble \
	advanced,basic,basic-nodouble,basic-randomchoice \
	basic-nodouble,advanced,basic-randomchoice,basic \
	basic-randomchoice,basic-nodouble,basic,advanced \
	basic,advanced,basic-nodouble,basic-randomchoice

.PHONY: run test bench check warmup fit clean-cache clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,dev,dask]'
	touch $@ $(VENV)/.installed-run

# No warmup first: each command compiles only the kernels it plays, once, and says so. The
# kernels `bonken-sim serve` adds (its computer players' decisions, about 90 CPU-s once the
# other commands' play loops are cached) compile in a second process beside the rest, from
# once the first `play` has compiled the basic loops they build on; niced, so that it takes
# the core a step leaves idle (a compile on one core, a process starting) rather than time
# from the steps. The last step waits for it, so a first `serve` is ready at once (the files:
# its process and how it ended).
SERVE_WARM := results/.serve-kernels-status
run: $(VENV)/.installed-run
	$(BIN)/bonken-sim play --seed 1 --deal 0 --contract hartenjagen
	@rm -f $(SERVE_WARM); (nice -n 10 $(BIN)/bonken-sim warmup --for serve >/dev/null; \
	  echo $$? >$(SERVE_WARM)) & echo $$! >$(SERVE_WARM).pid
	$(BIN)/bonken-sim play --seed 1 --deal 0 --contract troeven --trump S
	$(BIN)/bonken-sim trace --deals 1000 --seed 1 --out results/trace_seed1.jsonl --force
	$(BIN)/bonken-sim replay --quiet results/trace_seed1.jsonl
	$(BIN)/bonken-sim run --deals $(DEALS) --seed $(RUN_SEED) --out results/run-main --force
	$(BIN)/bonken-sim summary results/run-main
	@k=0; for players in $(SEATINGS); do k=$$((k + 1)); \
	  echo "$(BIN)/bonken-sim game --games $(GAMES) --seed $(GAME_SEED) --players $$players --out results/games-main/seating-$$k --force --quiet"; \
	  $(BIN)/bonken-sim game --games $(GAMES) --seed $(GAME_SEED) --players $$players \
	    --out results/games-main/seating-$$k --force --quiet || exit 1; \
	done
	$(BIN)/bonken-sim ladder --deals 20k --expert-deals 1000 --games $(LADDER_GAMES) --seed 1 --out results/ladder-main.json --force
	$(BIN)/bonken-sim run --deals $(STRONG_DEALS) --seed $(RUN_SEED) --strategies expert --out results/strong-main/deals --force --quiet
	@k=0; for players in $(STRONG_SEATINGS); do k=$$((k + 1)); \
	  echo "$(BIN)/bonken-sim game --games $(STRONG_GAMES) --seed $(GAME_SEED) --players $$players --out results/strong-main/games/seating-$$k --force --quiet"; \
	  $(BIN)/bonken-sim game --games $(STRONG_GAMES) --seed $(GAME_SEED) --players $$players \
	    --out results/strong-main/games/seating-$$k --force --quiet || exit 1; \
	done
	$(BIN)/bonken-sim report results/run-main --games results/games-main --ladder results/ladder-main.json \
	  --strong-deals results/strong-main/deals --strong-games results/strong-main/games
	@while kill -0 $$(cat $(SERVE_WARM).pid) 2>/dev/null; do sleep 1; done; \
	  status=$$(cat $(SERVE_WARM) 2>/dev/null || echo 1); rm -f $(SERVE_WARM) $(SERVE_WARM).pid; \
	  [ "$$status" = 0 ] || echo "bonken-sim warmup --for serve failed (exit $$status)" >&2; exit $$status

test: $(VENV)/.installed-test
	@scripts/ensure_chromium.sh
	$(BIN)/bonken-sim warmup
	$(BIN)/python -m pytest -n auto --dist loadfile

bench: $(VENV)/.installed-run
	$(BIN)/python benchmarks/bench_core.py

check: $(VENV)/.installed-test
	$(BIN)/ruff check bonken_sim tests benchmarks scripts
	$(BIN)/ruff format --check bonken_sim tests benchmarks scripts
	$(BIN)/mypy bonken_sim

warmup: $(VENV)/.installed-run
	$(BIN)/bonken-sim warmup

# Refit the contract-choice and doubling models shipped in bonken_sim/models/data/models.json.
fit: $(VENV)/.installed-run
	$(BIN)/python scripts/fit_models.py

# Compiled kernels live under ~/.cache/bonken-sim/numba/<hash of the core sources>, so an
# edit never runs a stale kernel; this removes them all.
clean-cache:
	rm -rf $${BONKEN_SIM_CACHE_DIR:-$${XDG_CACHE_HOME:-$$HOME/.cache}/bonken-sim}/numba

clean: clean-cache
	rm -rf $(VENV) build *.egg-info .pytest_cache
