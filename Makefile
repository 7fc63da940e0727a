# labgrader: a plain Makefile. Override CC, CFLAGS, PREFIX, CUDA_HOME, NVCC on the command line.
#
#   make                 build the grader (build/grader)
#   make check LAB=6     grade labs/lab6/solution (SUBMISSION=dir for another; ARGS=--full ...);
#                        builds first, quietly, into build/build.log (V=1: every command)
#   make test            unit, end-to-end and browser tests, then again under ASan+UBSan
#   make test-browser    the HTML pages in headless Chromium (tests/browser/README.md)
#   make test-gpu        the GPU end-to-end suite (needs a CUDA device)
#   make report LAB=6    re-render reports (and a class's summary) from existing results
#   make grade LAB=6 SUBMISSIONS=dir    grade a class
#   make kit LAB=6       student kit tarball
#   make gradescope LAB=6  Gradescope autograder zip (ARGS="--gpu-policy remote ..."; docs/exports.md)
#   make install         bin/labgrader, its data, and the manual page (man labgrader)
#   make bench           grading throughput and timing-accuracy table
#   make similarity LAB=6 SUBMISSIONS=dir   pairs of similar submissions (instructors)
#   make mutate LAB=6    does the lab's grading catch wrong code? (mutation testing)
#   make fuzz            libFuzzer harnesses (clang), FUZZ_SECONDS each (tests/fuzz/README.md)

CC        ?= gcc
PREFIX    ?= /usr/local
CUDA_HOME ?= $(firstword $(wildcard /usr/local/cuda) $(patsubst %/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null)))
NVCC      ?= $(if $(CUDA_HOME),$(wildcard $(CUDA_HOME)/bin/nvcc))
BUILD     ?= build
WARN      := -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wshadow -Wformat=2
CFLAGS    ?= -O2 -g
override CFLAGS += -std=c11 $(WARN) -D_GNU_SOURCE
ifeq ($(CI),true)
override CFLAGS += -Werror
endif
DEPFLAGS   = -MMD -MP
PKGS      := yaml-0.1
LDLIBS    += $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lyaml) -larchive -lm -ldl
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm -pthread)
LAB       ?= 6
LABDIR     = labs/lab$(LAB)
SUBMISSION ?= $(if $(wildcard $(LABDIR)/solution),$(LABDIR)/solution,$(LABDIR)/skeleton)
ARGS      ?=

# One folder per pipeline stage (docs/architecture.md); the harness is built apart.
STAGES     := base spec run grade report class analyze cli
GRADER_SRC := $(filter-out grader/cli/main.c,$(foreach s,$(STAGES),$(wildcard grader/$(s)/*.c)))
GRADER_OBJ := $(GRADER_SRC:grader/%.c=$(BUILD)/obj/%.o)
MAIN_OBJ   := $(BUILD)/obj/cli/main.o
LIB        := $(BUILD)/libgrader.a
BIN        := $(BUILD)/grader
MAN        := $(BUILD)/grader.1

# The harness is the trusted half of every student and reference process.
HARNESS_PARTS := harness job case timing fence stop buffers fill par clock result dtype seal
HARNESS_OBJ := $(BUILD)/harness/libharness.a
HARNESS_CPU := $(BUILD)/harness/harness_nogpu.o
HARNESS_GPU := $(if $(NVCC),$(BUILD)/harness/harness_gpu.o $(BUILD)/harness/gpuprobe)
CALIBRATE   := $(BUILD)/harness/calibrate
OPENBLAS_CFLAGS = $(shell pkg-config --cflags openblas 2>/dev/null || echo -I/usr/include/x86_64-linux-gnu/openblas-pthread)
OPENBLAS_LIBS   = $(shell pkg-config --libs openblas 2>/dev/null || echo -lopenblas)

# The suites that wait longest first: with two running at once (tests/run-suites.sh), the rest
# fill in beside them (test_sandbox waits on its runs' limits for about a minute, most of the
# unit stage; started last, it ran alone at the end).
UNIT_FIRST := tests/unit/test_sandbox.c tests/unit/test_report.c
UNIT_SRC  := $(filter $(UNIT_FIRST),$(wildcard tests/unit/test_*.c)) \
             $(filter-out $(UNIT_FIRST),$(wildcard tests/unit/test_*.c))
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
E2E_FIRST := tests/e2e/test_hostile.c tests/e2e/test_labs.c
E2E_SRC   := $(filter $(E2E_FIRST),$(wildcard tests/e2e/test_*.c)) \
             $(filter-out $(E2E_FIRST),$(wildcard tests/e2e/test_*.c))
E2E_BIN   := $(E2E_SRC:tests/e2e/%.c=$(BUILD)/tests/%)
# The longest GPU suites first (their times on an H200: make test-gpu's summary), so that the
# suites run at once end together rather than one long suite starting last.
GPU_FIRST := tests/gpu/test_workers_gpu.c tests/gpu/test_newlabs_gpu.c \
             tests/gpu/test_exploits_gpu.c tests/gpu/test_labs_gpu.c tests/gpu/test_gpu.c
GPU_SRC   := $(foreach f,$(GPU_FIRST),$(wildcard $(f))) \
             $(filter-out $(GPU_FIRST),$(wildcard tests/gpu/test_*.c))
GPU_BIN   := $(GPU_SRC:tests/gpu/%.c=$(BUILD)/tests/%)

VERSION   := $(shell cat VERSION 2>/dev/null || echo 0.1.0)
CPPFLAGS  += -DLG_VERSION='"$(VERSION)"' -DLG_DATADIR='"$(PREFIX)/share/labgrader"'

.PHONY: all build-quiet deps deps-test deps-analyze similarity mutate check test test-bins test-unit test-e2e test-browser test-asan test-fuzz-replay test-gpu report grade kit gradescope bench \
        slurm-grade validate print-gpu-bin check-layers format format-check lint install uninstall clean \
        fuzz fuzz-build deps-fuzz

all: $(BIN) $(HARNESS_OBJ) $(HARNESS_CPU) $(HARNESS_GPU) $(CALIBRATE) $(MAN)

deps-test:
	@bash grader/deps.sh test

deps:
	@bash grader/deps.sh build

deps-analyze:
	@bash grader/deps.sh analyze

# libclang (grader similarity, grader mutate) is loaded at run time (grader/analyze/tokens.c):
# nothing of it is needed to build, and the rest of the grader runs without it.

# The grader's sources include libyaml's and libarchive's headers, and calibrate OpenBLAS's:
# on a fresh machine `make` (all) first gets the build's Debian packages as `make deps` does
# (installed when it can, else the one apt-get command to run), rather than stopping at
# "archive.h: No such file or directory". Checked once per build folder (the stamp), and
# again when deps.sh changes.
DEPS_STAMP := $(BUILD)/.deps-build
$(DEPS_STAMP): grader/deps.sh
	@bash grader/deps.sh build || { echo "make: the packages above are needed to build labgrader (make deps installs them, as root)" >&2; exit 1; }
	@mkdir -p $(@D) && touch $@
$(GRADER_OBJ) $(MAIN_OBJ) $(BUILD)/harness/calibrate.o: | $(DEPS_STAMP)

$(BUILD)/obj/%.o: grader/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Igrader $(shell pkg-config --cflags $(PKGS) 2>/dev/null) -c $< -o $@

$(LIB): $(GRADER_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(MAIN_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The manual page, generated from the command and option tables (grader help --man), so that
# it lists exactly what the parser takes.
$(MAN): $(BIN) templates/man/grader.1
	$(BIN) help --man > $@.tmp && mv $@.tmp $@

# Harness objects: built without sanitizers or -Werror toggles of the grader, since
# they are linked into student programs compiled with the lab's own flags.
HARNESS_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -D_GNU_SOURCE -fPIC -Igrader -Igrader/harness
$(BUILD)/harness/%.o: grader/harness/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(HARNESS_CFLAGS) $(DEPFLAGS) -c $< -o $@
# The two base modules both sides must compute alike: element types, and the seals.
$(BUILD)/harness/dtype.o $(BUILD)/harness/seal.o: $(BUILD)/harness/%.o: grader/base/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(HARNESS_CFLAGS) $(DEPFLAGS) -c $< -o $@
# One archive: a runner links it with the student's objects and its GPU (or no-GPU) part.
$(BUILD)/harness/libharness.a: $(HARNESS_PARTS:%=$(BUILD)/harness/%.o)
	@rm -f $@
	$(AR) rcs $@ $^
$(BUILD)/harness/harness_gpu.o: grader/harness/harness_gpu.cu grader/harness/harness.h grader/harness/draw.h
	@mkdir -p $(@D)
	$(NVCC) -O2 -Igrader -Igrader/harness -Xcompiler -fPIC -c $< -o $@
$(BUILD)/harness/calibrate.o: grader/harness/calibrate.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(HARNESS_CFLAGS) $(OPENBLAS_CFLAGS) -c $< -o $@
ifneq ($(NVCC),)
$(BUILD)/harness/calibrate_gpu.o: grader/harness/calibrate_gpu.cu
	@mkdir -p $(@D)
	$(NVCC) -O2 -c $< -o $@
$(CALIBRATE): $(BUILD)/harness/calibrate.o $(BUILD)/harness/calibrate_gpu.o
	$(NVCC) -o $@ $^ $(OPENBLAS_LIBS) -lcublas -lpthread
else
$(CALIBRATE): $(BUILD)/harness/calibrate.o $(BUILD)/harness/calibrate_nogpu.o
	$(CC) -o $@ $^ $(OPENBLAS_LIBS) -lpthread
endif
$(BUILD)/harness/gpuprobe: grader/harness/gpuprobe.cu
	@mkdir -p $(@D)
	$(NVCC) -O2 -o $@ $< -lcudart

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Igrader $(shell pkg-config --cflags check 2>/dev/null) -o $@ $< $(LIB) $(CHECK_LIBS) $(LDLIBS)
$(BUILD)/tests/%: tests/gpu/%.c $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Igrader $(shell pkg-config --cflags check 2>/dev/null) -o $@ $< $(LIB) $(CHECK_LIBS) $(LDLIBS)
$(BUILD)/tests/%: tests/e2e/%.c $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Igrader $(shell pkg-config --cflags check 2>/dev/null) -o $@ $< $(LIB) $(CHECK_LIBS) $(LDLIBS)

# The commands a student or an instructor types build the grader first, quietly: a first
# `make check` is a minute of some 170 compiler lines. The console says what is being built
# and where the log is; the log holds the compilers' output (warnings and errors), and a failed
# build prints it whole. V=1 builds as `make all` does, every command shown.
BUILD_LOG := $(BUILD)/build.log
build-quiet: deps
ifeq ($(V),1)
	@$(MAKE) --no-print-directory all
else
	@if ! $(MAKE) -q --no-print-directory all >/dev/null 2>&1; then \
	  mkdir -p $(BUILD); \
	  echo "make: building labgrader in $(BUILD)/ (the grader, its harness$(if $(NVCC), and their CUDA parts with nvcc); a few minutes the first time); log: $(BUILD_LOG)"; \
	  if ! $(MAKE) -s --no-print-directory all > $(BUILD_LOG) 2>&1; then \
	    cat $(BUILD_LOG) >&2; \
	    echo "make: building labgrader failed: the compilers' messages are above and in $(BUILD_LOG) (make V=1 shows every command)" >&2; \
	    exit 1; \
	  fi; \
	  w=$$(grep -c 'warning:' $(BUILD_LOG)); \
	  if [ "$$w" -gt 0 ]; then echo "make: built, with $$w compiler warnings (in $(BUILD_LOG))"; \
	  else echo "make: built"; fi; \
	fi
endif

# make's own exit status is 0, or 2 whatever the grader's was (GNU make has no other): the
# grader's status, and what it means, is said on the last line, and make's "Error N" repeats
# it. Scripts that need it run the build/grader command the first line shows.
GRADER_STATUS = st=$$?; case $$st in \
	  0) ;; \
	  1) echo "make: grader $(1) exited 1: something failed, by the submission's fault (make itself exits 2; build/grader $(1) gives the 1)" >&2;; \
	  2) echo "make: grader $(1) exited 2: a usage or spec error, said above" >&2;; \
	  3) echo "make: grader $(1) exited 3: the grader failed, not the submission (make itself exits 2; build/grader $(1) gives the 3)" >&2;; \
	  *) echo "make: grader $(1) exited $$st" >&2;; \
	esac; exit $$st

check: build-quiet
	@echo "$(BIN) check $(LABDIR) --submission $(SUBMISSION) $(ARGS)"; \
	$(BIN) check $(LABDIR) --submission $(SUBMISSION) $(ARGS); $(call GRADER_STATUS,check)

validate: build-quiet
	@for f in labs/lab*/lab.yaml; do $(BIN) validate $$f || exit 2; done

report: build-quiet
	$(BIN) report $(LABDIR) $(ARGS)

grade: build-quiet
	@echo "$(BIN) grade $(LABDIR) --submissions $(SUBMISSIONS) $(ARGS)"; \
	$(BIN) grade $(LABDIR) --submissions $(SUBMISSIONS) $(ARGS); $(call GRADER_STATUS,grade)

slurm-grade: build-quiet
	$(BIN) slurm $(LABDIR) --submissions $(SUBMISSIONS) $(ARGS)

kit: build-quiet
	$(BIN) kit $(LABDIR) $(ARGS)

gradescope: build-quiet
	$(BIN) gradescope $(LABDIR) $(ARGS)

# Instructors only. deps-analyze may install libclang-dev, so the build runs afterwards.
similarity: deps deps-analyze
	@$(MAKE) --no-print-directory build-quiet
	$(BIN) similarity $(LABDIR) --submissions $(SUBMISSIONS) $(ARGS)

mutate: deps deps-analyze
	@$(MAKE) --no-print-directory build-quiet
	$(BIN) mutate $(LABDIR) $(ARGS)

bench: deps all
	bash tests/bench/run.sh

# make test: the normal build, then the same suites under AddressSanitizer and UBSan. Both
# stages share one grader cache (LABGRADER_CACHE, removed at the end unless it was given): the
# sanitizers' stage grades the same labs with the same references and the same (uninstrumented)
# harness, so it builds and calibrates nothing the first stage already did.
# The builds run a job per CPU (the suites then pace themselves: tests/run-suites.sh). The
# stages run one after another: the unit stage beside the end-to-end one loaded test_sandbox's
# runs past their safety limits on two cores.
test: deps-test
	@bash tests/check-layers.sh
	@$(MAKE) --no-print-directory format-check
	@$(MAKE) --no-print-directory -j$(JOBS) test-bins
	@own=; if [ -z "$${LABGRADER_CACHE:-}" ]; then own=$$(mktemp -d /tmp/lg-test-cache-XXXXXX); \
	  export LABGRADER_CACHE=$$own; fi; trap '[ -z "$$own" ] || rm -rf "$$own"' EXIT; \
	  $(MAKE) --no-print-directory test-unit test-e2e test-browser && $(MAKE) --no-print-directory test-asan

JOBS := $(shell nproc 2>/dev/null || echo 2)
test-bins: all $(UNIT_BIN) $(E2E_BIN)

test-unit: all $(UNIT_BIN)
	@bash tests/run-suites.sh unit $(UNIT_BIN)

test-e2e: all $(E2E_BIN)
	@LG_BIN=$(abspath $(BIN)) bash tests/run-suites.sh e2e $(E2E_BIN)

# The HTML pages in a real browser: skipped, with the reason, where Chromium is not installed.
test-browser: all
	@LG_BIN=$(abspath $(BIN)) tests/browser/run.sh

SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# Under the sanitizers: every unit suite, and the end-to-end suites that exercise the
# grader's own code paths (the kit and Slurm suites build or drive other programs). The
# hostile suite mostly waits on wall-clock limits of student code; the supervisor paths it
# drives (kill, output caps, tamper checks) run under the sanitizers in test_sandbox, and
# leaving it out keeps `make test` well inside CI's budget. The short suites run beside
# test_batch, the longest, at no cost in time: the coordinator's (runs frozen and thawed, where
# a use after free once hid), the command line's, the hidden view's and sources-only's.
ASAN_E2E := test_e2e test_batch test_coordinator test_cli test_hidden_view test_sources_only
ASAN_MAKE = $(MAKE) --no-print-directory BUILD=build/asan CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" \
	  E2E_BIN="$(addprefix build/asan/tests/,$(filter $(ASAN_E2E),$(E2E_SRC:tests/e2e/%.c=%)))"
test-asan:
	@$(ASAN_MAKE) -j$(JOBS) test-bins $(ASAN_REPLAY)
	@$(ASAN_MAKE) test-unit test-e2e test-fuzz-replay

test-gpu: deps all $(GPU_BIN)
	@LG_BIN=$(abspath $(BIN)) bash tests/run-suites.sh gpu $(GPU_BIN)

print-gpu-bin:
	@echo $(GPU_BIN)

# make fuzz: every harness in tests/fuzz/ for FUZZ_SECONDS (10: a short run; FUZZ_SECONDS=3600
# on demand), from its seed corpus (tests/fuzz/corpus/NAME, never written) plus what earlier runs
# found (build/fuzz/corpus/NAME). A crash, a sanitizer report or a broken property stops it and
# leaves the input in build/fuzz/crash-NAME-*. The grader's library is built again with clang,
# libFuzzer's instrumentation, ASan and UBSan, in build/fuzz.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 10
FUZZ_FLAGS   := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_BUILD   := build/fuzz
FUZZ_NAMES   := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN     := $(addprefix $(FUZZ_BUILD)/,$(FUZZ_NAMES))

# Every fuzz harness's seed corpus replayed (tests/fuzz/replay.c), under the sanitizers in
# `make test`: the findings kept there stay fixed. Fuzzing itself is `make fuzz` (clang).
REPLAY_BIN  = $(FUZZ_NAMES:%=$(BUILD)/tests/replay_%)
ASAN_REPLAY = $(FUZZ_NAMES:%=build/asan/tests/replay_%)
$(BUILD)/tests/replay_%: tests/fuzz/%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Igrader -o $@ $< tests/fuzz/replay.c $(LIB) $(LDLIBS)
test-fuzz-replay: $(REPLAY_BIN)
	@for n in $(FUZZ_NAMES); do $(BUILD)/tests/replay_$$n tests/fuzz/corpus/$$n > /dev/null || \
	  { echo "fuzz replay: $$n failed on its seed corpus (tests/fuzz/corpus/$$n)"; exit 1; }; done; \
	  echo "fuzz replay: $(words $(FUZZ_NAMES)) harnesses, every seed of tests/fuzz/corpus/ passed"

fuzz-build: deps-fuzz
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) CI= CFLAGS="$(FUZZ_FLAGS)" \
	  $(FUZZ_BUILD)/libgrader.a
	@$(MAKE) --no-print-directory $(FUZZ_BIN)

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_BUILD)/libgrader.a
	$(FUZZ_CC) $(CPPFLAGS) -std=c11 -D_GNU_SOURCE $(FUZZ_FLAGS) -fsanitize=fuzzer -Igrader \
	  -o $@ $< $(FUZZ_BUILD)/libgrader.a $(LDLIBS)

fuzz: fuzz-build
	@for n in $(FUZZ_NAMES); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$n; \
	  echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_BUILD)/$$n -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/crash-$$n- \
	    $(FUZZ_BUILD)/corpus/$$n tests/fuzz/corpus/$$n 2>$(FUZZ_BUILD)/$$n.log \
	    || { tail -n 40 $(FUZZ_BUILD)/$$n.log; echo "fuzz: $$n failed (log $(FUZZ_BUILD)/$$n.log)"; exit 1; }; \
	  grep -E '^stat::number_of_executed_units' $(FUZZ_BUILD)/$$n.log | sed "s/^/fuzz: $$n: /"; \
	done

deps-fuzz:
	@bash grader/deps.sh fuzz

FORMAT_FILES = $(sort $(wildcard grader/*/*.c grader/*/*.h grader/harness/*.c grader/harness/*.h grader/harness/*.cu tests/unit/*.c tests/e2e/*.c tests/e2e/*.h tests/gpu/*.c tests/fuzz/*.c tests/fuzz/*.h))

format:
	clang-format -i $(FORMAT_FILES)

check-layers:
	@bash tests/check-layers.sh

# One clang-format per 50 files, two at a time: one per file took 42 s of `make test` here.
format-check:
	@if command -v clang-format >/dev/null; then \
	  out=$$(printf '%s\n' $(FORMAT_FILES) | xargs -n 50 -P 2 clang-format --dry-run 2>&1); \
	  if [ -n "$$out" ]; then echo "$$out" | head -20; echo "clang-format: run 'make format'"; exit 1; fi; \
	  echo "clang-format: clean"; \
	else echo "clang-format: not installed, skipped"; fi

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 -Igrader grader

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/labgrader/harness \
	  $(DESTDIR)$(PREFIX)/share/labgrader/include
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/labgrader
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 $(MAN) $(DESTDIR)$(PREFIX)/share/man/man1/labgrader.1
	install -m 644 $(MAN) $(DESTDIR)$(PREFIX)/share/man/man1/grader.1
	install -m 644 $(BUILD)/harness/*.o $(DESTDIR)$(PREFIX)/share/labgrader/harness/
	if [ -e $(BUILD)/harness/gpuprobe ]; then install -m 755 $(BUILD)/harness/gpuprobe $(DESTDIR)$(PREFIX)/share/labgrader/harness/; fi
	install -m 644 grader/harness/harness.h $(DESTDIR)$(PREFIX)/share/labgrader/include/
	cp -r templates kernels $(DESTDIR)$(PREFIX)/share/labgrader/

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/bin/labgrader $(DESTDIR)$(PREFIX)/share/labgrader \
	  $(DESTDIR)$(PREFIX)/share/man/man1/labgrader.1 $(DESTDIR)$(PREFIX)/share/man/man1/grader.1

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
