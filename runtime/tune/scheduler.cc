#include "runtime/tune/scheduler.h"

#include "runtime/tune/space.h"

namespace ray::tune {

// Each defined beside its scheduler; each reads and checks its own keys.
Result<std::unique_ptr<TrialScheduler>> MakeAsyncHyperBand(const Json& config, uint64_t seed);
Result<std::unique_ptr<TrialScheduler>> MakeHyperBand(const Json& config, uint64_t seed);
Result<std::unique_ptr<TrialScheduler>> MakeMedianStopping(const Json& config, uint64_t seed);
Result<std::unique_ptr<TrialScheduler>> MakePopulationBasedTraining(const Json& config,
                                                                    uint64_t seed);

// Ray's FIFO order: pending trials first, then paused ones, each in creation order.
Trial* TrialScheduler::ChooseTrialToRun(TrialRunner& runner) {
  for (TrialStatus wanted : {TrialStatus::kPending, TrialStatus::kPaused}) {
    for (Trial* trial : runner.Trials()) {
      if (trial->status == wanted && runner.HasResources(*trial)) return trial;
    }
  }
  return nullptr;
}

namespace {

// Runs trials in submission order to the end.
class FifoScheduler : public TrialScheduler {
 public:
  Decision OnTrialResult(TrialRunner&, Trial&, const Json&) override { return Decision::kContinue; }
  std::string DebugString() const override { return "Using FIFO scheduling algorithm."; }
};

}  // namespace

Result<std::unique_ptr<TrialScheduler>> MakeScheduler(const std::string& name, const Json& config,
                                                      uint64_t seed) {
  if (name == "FIFO") {
    KeywordArgs args("FIFO", config);
    RAY_RETURN_IF_ERROR(args.Finish());
    return std::unique_ptr<TrialScheduler>(std::make_unique<FifoScheduler>());
  }
  if (name == "AsyncHyperBand" || name == "ASHA") return MakeAsyncHyperBand(config, seed);
  if (name == "HyperBand") return MakeHyperBand(config, seed);
  if (name == "MedianStopping" || name == "MedianStoppingRule") {
    return MakeMedianStopping(config, seed);
  }
  if (name == "PBT" || name == "PopulationBasedTraining") {
    return MakePopulationBasedTraining(config, seed);
  }
  return Status::InvalidArgument("unknown scheduler '" + name +
                                 "' (FIFO, AsyncHyperBand, HyperBand, MedianStopping, PBT)");
}

}  // namespace ray::tune
