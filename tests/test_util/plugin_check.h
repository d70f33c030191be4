#pragma once
// Checks for test plugins: a case's RAY_MAIN runs them and reports the first
// failure (CheckFailed) with its line, instead of aborting the job.

#include <ray/api.h>

#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

struct CheckFailed {
  std::string what;
};

#define CHECK_THAT(cond, detail)                                 \
  do {                                                           \
    if (!(cond)) {                                               \
      std::ostringstream os_;                                    \
      os_ << "line " << __LINE__ << ": " #cond " -- " << detail; \
      throw CheckFailed{os_.str()};                              \
    }                                                            \
  } while (0)

// Runs `call` and checks that it throws E; returns the exception for more checks.
template <typename E, typename Call>
E ExpectThrow(Call&& call, const std::string& what) {
  try {
    call();
  } catch (const E& e) {
    return e;
  } catch (const std::exception& e) {
    throw CheckFailed{what + ": threw the wrong exception (" +
                      ray::internal::Demangle(typeid(e).name()) + "): " + e.what()};
  }
  throw CheckFailed{what + ": did not throw"};
}

// "[1, 2, 3]", for check details.
template <typename T>
std::string Str(const std::vector<T>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  return os.str() + "]";
}
