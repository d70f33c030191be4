# The two commands of the README:
#   make demo   set up, build, train PPO on CartPole on a local cluster, run examples
#   make test   set up, build, and run every test (ctest)
BUILD ?= build
JOBS ?= 2
RAY := $(BUILD)/cli/ray
EXAMPLES := $(BUILD)/plugins/examples

.PHONY: setup build demo test clean

setup:
	@bash scripts/setup.sh

# Ninja when it is installed (scripts/setup.sh installs it): it schedules the whole
# tree's compiles and links as one graph. A build directory keeps the generator it
# was configured with.
build: setup
	@gen=""; [ -f $(BUILD)/CMakeCache.txt ] || ! command -v ninja >/dev/null || gen="-G Ninja"; \
	  cmake -S . -B $(BUILD) $$gen -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
	@cmake --build $(BUILD) -j$(JOBS)

demo: build
	@echo "== PPO on CartPole-v1 on a local cluster (2 rollout-worker actors), until it is solved"
	@$(BUILD)/cli/rllib train -f share/tuned_examples/cartpole-ppo.yaml
	@echo "== Ray's tutorial: values, refs, chains, nested tasks"
	@$(RAY) run $(EXAMPLES)/tutorial.so
	@echo "== Actors: ten counters, then five calls on one"
	@$(RAY) run $(EXAMPLES)/counter_actor.so

# $(JOBS) tests at a time; tests that need the machine to themselves are RUN_SERIAL.
test: build
	@cd $(BUILD) && ctest -j$(JOBS) --output-on-failure --timeout 300

clean:
	rm -rf $(BUILD)
