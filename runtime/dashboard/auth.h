#pragma once
// Who may see the dashboard: a request carries the cluster token in one of three
// places, checked in this order, and is refused (401) otherwise:
//   Authorization: Bearer <token>     scripts
//   ?token=<token> in the URL         the link `ray start --head` prints, the login form
//   Cookie: ray_dashboard=<session>   set after either of the above
// The cookie holds a digest of the token, never the token, so a leaked cookie does not
// let anyone join the cluster. Pure functions; comparisons take constant time.

#include <optional>
#include <string>
#include <string_view>

#include "runtime/base/strings.h"

namespace ray::dashboard {

inline constexpr char kCookieName[] = "ray_dashboard";

using ::ray::ConstantTimeEquals;  // runtime/base/strings.h

// The value of cookie `name` in a Cookie header ("a=1; b=2"), if present.
std::optional<std::string> CookieValue(std::string_view header, std::string_view name);

// The cookie value that stands for `token`.
std::string SessionCookieValue(const std::string& token);

// The Set-Cookie header value a request with a valid token gets back.
std::string SetCookieHeader(const std::string& token);

enum class AuthResult {
  kRefused,      // no credential, or a wrong one
  kByHeader,     // Authorization: Bearer
  kByUrlToken,   // ?token=: pages redirect to the URL without it, setting the cookie
  kByCookie,
};

struct Credentials {
  std::string authorization;               // the Authorization header ("" if none)
  std::optional<std::string> url_token;    // ?token=
  std::string cookie;                      // the Cookie header ("" if none)
};

AuthResult Authenticate(const Credentials& request, const std::string& token);

}  // namespace ray::dashboard
