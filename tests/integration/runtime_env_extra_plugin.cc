// An extra plugin a job's runtime_env loads into its workers (lifetime_test.cc): when
// loaded it marks the worker's environment, which the job's tasks can see.

#include <ray/api.h>

#include <cstdlib>

namespace {

int Marked() { return ::setenv("RT_EXTRA_PLUGIN", "loaded", 1); }
const int kMarked = Marked();

int ExtraPing() { return kMarked; }
RAY_REMOTE(ExtraPing);

}  // namespace
