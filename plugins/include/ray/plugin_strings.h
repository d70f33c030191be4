#pragma once
// What the C boundaries of plugin libraries (Tune loggers, RLlib callbacks) share: a
// message handed to the caller as a malloc'ed C string (which the library's
// free_string frees), and a guard that turns an exception into such a message, so
// that no exception crosses the boundary.

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

namespace ray::plugin_strings {

// A malloc'ed copy of `s` (null if out of memory).
inline char* Dup(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out != nullptr) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

// Runs `f`: null on success, else the exception's message.
template <typename F>
char* Guard(F&& f) noexcept {
  try {
    f();
    return nullptr;
  } catch (const std::exception& e) {
    return Dup(e.what());
  } catch (...) {
    return Dup("unknown exception");
  }
}

}  // namespace ray::plugin_strings
