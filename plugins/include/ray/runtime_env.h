#pragma once
// ray::RuntimeEnv: the runtime environment of a task or actor (Ray's runtime_env),
// given with .SetRuntimeEnv(env):
//   env_vars     variables set in the worker processes that run it, merged over the
//                job's (the task's win);
//   working_dir  a local directory, shipped to every node and the cwd of those workers
//                (replaces the job's);
//   plugins      local plugin files loaded in those workers beside the job's (replace
//                the job's).
// The job's own comes from `ray run/submit --runtime-env`. A task's own tasks inherit
// its environment. A working_dir or plugin is shipped once per process: changes made
// to it after the first task that used it are not seen. Keys the runtime does not
// support are refused when the task is submitted.
//
//   ray::RuntimeEnv env;
//   env.Set("env_vars", {{"MODE", "fast"}}).Set("working_dir", "data/run1");
//   env.SetList("plugins", {"/path/to/extra.so"});
//   ray::Task(F).SetRuntimeEnv(env).Remote();
//
// As Ray's C++ RuntimeEnv it is also a container of JSON fields: SetJsonStr and
// GetJsonStr (any JSON value), Get<T> for T = std::string, a string map or a string
// list, Contains, Remove, Empty, and Serialize / Deserialize (a JSON object). A field
// that is missing, of another type, or malformed JSON throws RuntimeEnvError.

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "ray/errors.h"

namespace ray {

// A runtime environment field missing, of another type, or not JSON.
class RuntimeEnvError : public RayException {
 public:
  using RayException::RayException;
};

namespace internal {

// A small JSON reader: enough to check values and read strings, string maps and
// string lists (the shapes of Ray's runtime_env keys). Positions index `s`.
class JsonScan {
 public:
  explicit JsonScan(const std::string& s) : s_(s) {}
  // Skips whitespace from `i`.
  size_t Ws(size_t i) const {
    while (i < s_.size() && (s_[i] == ' ' || s_[i] == '\t' || s_[i] == '\n' || s_[i] == '\r')) ++i;
    return i;
  }
  // Just past the value at `i` (after whitespace); npos if malformed.
  size_t Value(size_t i, int depth = 0) const {
    i = Ws(i);
    if (i >= s_.size() || depth > 64) return npos;
    char c = s_[i];
    if (c == '"') {
      std::string ignored;
      return String(i, ignored);
    }
    if (c == '{' || c == '[') {
      const bool object = c == '{';
      i = Ws(i + 1);
      if (i < s_.size() && s_[i] == (object ? '}' : ']')) return i + 1;
      for (;;) {
        if (object) {
          std::string key;
          i = String(Ws(i), key);
          if (i == npos || (i = Ws(i)) >= s_.size() || s_[i] != ':') return npos;
          ++i;
        }
        if ((i = Value(i, depth + 1)) == npos || (i = Ws(i)) >= s_.size()) return npos;
        if (s_[i] == ',') {
          ++i;
          continue;
        }
        return s_[i] == (object ? '}' : ']') ? i + 1 : npos;
      }
    }
    for (const char* word : {"true", "false", "null"}) {
      if (s_.compare(i, std::char_traits<char>::length(word), word) == 0) {
        return i + std::char_traits<char>::length(word);
      }
    }
    size_t j = i;
    if (j < s_.size() && s_[j] == '-') ++j;
    size_t digits = j;
    while (j < s_.size() && s_[j] >= '0' && s_[j] <= '9') ++j;
    if (j == digits) return npos;
    if (j < s_.size() && s_[j] == '.') {
      size_t frac = ++j;
      while (j < s_.size() && s_[j] >= '0' && s_[j] <= '9') ++j;
      if (j == frac) return npos;
    }
    if (j < s_.size() && (s_[j] == 'e' || s_[j] == 'E')) {
      ++j;
      if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
      size_t exp = j;
      while (j < s_.size() && s_[j] >= '0' && s_[j] <= '9') ++j;
      if (j == exp) return npos;
    }
    return j;
  }
  // Whether all of `s` is one JSON value (whitespace around it allowed).
  bool Whole() const {
    size_t end = Value(0);
    return end != npos && Ws(end) == s_.size();
  }
  // Decodes the string at `i` (a '"') into `out`; just past it, or npos.
  size_t String(size_t i, std::string& out) const {
    if (i >= s_.size() || s_[i] != '"') return npos;
    for (++i; i < s_.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(s_[i]);
      if (c == '"') return i + 1;
      if (c < 0x20) return npos;
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (++i >= s_.size()) return npos;
      switch (s_[i]) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = 0;
          if ((i = Hex4(i + 1, cp)) == npos) return npos;
          if (cp >= 0xD800 && cp <= 0xDBFF && s_.compare(i + 1, 2, "\\u") == 0) {
            uint32_t low = 0;
            size_t j = Hex4(i + 3, low);
            if (j != npos && low >= 0xDC00 && low <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
              i = j;
            }
          }
          Utf8(cp, out);
          break;
        }
        default: return npos;
      }
    }
    return npos;
  }
  static constexpr size_t npos = std::string::npos;

 private:
  // Reads 4 hex digits at `i` into `cp`; the index of the last one, or npos.
  size_t Hex4(size_t i, uint32_t& cp) const {
    if (i + 4 > s_.size()) return npos;
    for (size_t k = 0; k < 4; ++k) {
      char h = s_[i + k];
      int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
            : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
      if (v < 0) return npos;
      cp = cp * 16 + static_cast<uint32_t>(v);
    }
    return i + 3;
  }
  static void Utf8(uint32_t cp, std::string& out) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  const std::string& s_;
};

}  // namespace internal

class RuntimeEnv {
 public:
  // Sets field `name` ("env_vars") to a string mapping.
  RuntimeEnv& Set(const std::string& name, const std::map<std::string, std::string>& value) {
    fields_[name] = Object(value);
    return *this;
  }
  // Sets field `name` ("working_dir") to a string.
  RuntimeEnv& Set(const std::string& name, const std::string& value) {
    fields_[name] = Quote(value);
    return *this;
  }
  // Sets field `name` ("plugins") to a list of strings.
  RuntimeEnv& SetList(const std::string& name, const std::vector<std::string>& value) {
    std::string out = "[";
    for (const auto& v : value) out += (out.size() > 1 ? "," : "") + Quote(v);
    fields_[name] = out + "]";
    return *this;
  }
  // The JSON object the runtime reads.
  std::string ToJson() const {
    if (fields_.empty()) return "";
    std::string out = "{";
    for (const auto& [k, v] : fields_) out += (out.size() > 1 ? "," : "") + Quote(k) + ":" + v;
    return out + "}";
  }

  // Sets field `name` to the JSON value `json`, without the whitespace around it
  // (checked: RuntimeEnvError if malformed).
  RuntimeEnv& SetJsonStr(const std::string& name, const std::string& json) {
    internal::JsonScan scan(json);
    if (!scan.Whole()) throw RuntimeEnvError("runtime_env field '" + name + "': not JSON: " + json);
    size_t start = scan.Ws(0);
    fields_[name] = json.substr(start, scan.Value(start) - start);
    return *this;
  }
  // Field `name` as JSON text (RuntimeEnvError if there is none).
  std::string GetJsonStr(const std::string& name) const { return Field(name); }
  // Field `name` as a T: std::string, std::map<std::string, std::string> or
  // std::vector<std::string> (RuntimeEnvError if missing or of another shape).
  template <typename T>
  T Get(const std::string& name) const {
    const std::string& json = Field(name);
    internal::JsonScan scan(json);
    T out{};
    size_t i = scan.Ws(0);
    bool ok = false;
    if constexpr (std::is_same_v<T, std::string>) {
      i = scan.String(i, out);
      ok = i != scan.npos;
    } else if constexpr (std::is_same_v<T, std::map<std::string, std::string>> ||
                         std::is_same_v<T, std::vector<std::string>>) {
      constexpr bool object = std::is_same_v<T, std::map<std::string, std::string>>;
      ok = i < json.size() && json[i] == (object ? '{' : '[');
      i = scan.Ws(i + 1);
      bool first = true;
      while (ok && i < json.size() && json[i] != (object ? '}' : ']')) {
        if (!first) {
          ok = json[i] == ',';
          i = scan.Ws(i + 1);
        }
        first = false;
        std::string key, value;
        if (ok && object) {
          i = scan.String(i, key);
          ok = i != scan.npos && (i = scan.Ws(i)) < json.size() && json[i] == ':';
          i = scan.Ws(i + 1);
        }
        if (ok) ok = (i = scan.String(i, value)) != scan.npos;
        if (ok) i = scan.Ws(i);
        if constexpr (object) {
          if (ok) out[key] = value;
        } else {
          if (ok) out.push_back(value);
        }
      }
      ok = ok && i < json.size();
      if (ok) ++i;
    } else {
      static_assert(!sizeof(T), "Get<T>: T is std::string, a string map or a string list");
    }
    if (!ok || scan.Ws(i) != json.size()) {
      throw RuntimeEnvError("runtime_env field '" + name + "' is not of the type asked: " + json);
    }
    return out;
  }
  bool Contains(const std::string& name) const { return fields_.count(name) > 0; }
  // Removes field `name`; whether there was one.
  bool Remove(const std::string& name) { return fields_.erase(name) > 0; }
  bool Empty() const { return fields_.empty(); }
  // The fields as one JSON object ("{}" if none), and back.
  std::string Serialize() const { return fields_.empty() ? "{}" : ToJson(); }
  static RuntimeEnv Deserialize(const std::string& json) {
    internal::JsonScan scan(json);
    RuntimeEnv env;
    size_t i = scan.Ws(0);
    bool ok = scan.Whole() && i < json.size() && json[i] == '{';
    for (i = scan.Ws(i + 1); ok && json[i] != '}';) {
      std::string key;
      i = scan.String(i, key);
      i = scan.Ws(i) + 1;  // (the ':', as Whole checked)
      size_t start = scan.Ws(i);
      i = scan.Value(start);
      env.fields_[key] = json.substr(start, i - start);
      i = scan.Ws(i);
      if (json[i] == ',') i = scan.Ws(i + 1);
    }
    if (!ok) throw RuntimeEnvError("a serialized runtime_env is a JSON object, not: " + json);
    return env;
  }

 private:
  static std::string Quote(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  }
  static std::string Object(const std::map<std::string, std::string>& m) {
    std::string out = "{";
    for (const auto& [k, v] : m) out += (out.size() > 1 ? "," : "") + Quote(k) + ":" + Quote(v);
    return out + "}";
  }
  const std::string& Field(const std::string& name) const {
    auto it = fields_.find(name);
    if (it == fields_.end()) throw RuntimeEnvError("runtime_env has no field '" + name + "'");
    return it->second;
  }
  std::map<std::string, std::string> fields_;  // name -> JSON value
};

}  // namespace ray
