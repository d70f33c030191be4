# The two commands of the README:
#   make demo   set up, build, and run the example jobs on a local cluster
#   make test   set up, build, and run every test (ctest)
BUILD ?= build
JOBS ?= 2
RAY := $(BUILD)/cli/ray
EXAMPLES := $(BUILD)/plugins/examples

.PHONY: setup build demo test clean

setup:
	@bash scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
	@cmake --build $(BUILD) -j$(JOBS)

demo: build
	@echo "== Ray's tutorial: values, refs, chains, nested tasks"
	@$(RAY) run $(EXAMPLES)/tutorial.so
	@echo "== Actors: ten counters, then five calls on one"
	@$(RAY) run $(EXAMPLES)/counter_actor.so
	@echo "== A parameter server actor with four gradient workers"
	@$(RAY) run $(EXAMPLES)/parameter_server.so
	@echo "== Map-reduce word count"
	@$(RAY) run $(EXAMPLES)/word_count.so

test: build
	@cd $(BUILD) && ctest --output-on-failure --timeout 300

clean:
	rm -rf $(BUILD)
