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

build: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
	@cmake --build $(BUILD) -j$(JOBS)

demo: build
	@echo "== PPO on CartPole-v1 on a local cluster (2 rollout-worker actors), until it is solved"
	@$(BUILD)/cli/rllib train -f share/tuned_examples/cartpole-ppo.yaml
	@echo "== Ray's tutorial: values, refs, chains, nested tasks"
	@$(RAY) run $(EXAMPLES)/tutorial.so
	@echo "== Actors: ten counters, then five calls on one"
	@$(RAY) run $(EXAMPLES)/counter_actor.so

test: build
	@cd $(BUILD) && ctest --output-on-failure --timeout 300

clean:
	rm -rf $(BUILD)
