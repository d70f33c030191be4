// The trainable of the Tune overhead benchmark: one step that does nothing.

#include <ray/tune.h>

class Trivial : public ray::tune::Trainable {
 public:
  ray::tune::Json Step() override { return {{"done", true}, {"value", 1}}; }
};
RAY_TUNE_TRAINABLE("trivial", Trivial);
