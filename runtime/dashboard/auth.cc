#include "runtime/dashboard/auth.h"

#include <sodium.h>

#include "runtime/base/hex.h"

namespace ray::dashboard {

std::optional<std::string> CookieValue(std::string_view header, std::string_view name) {
  size_t pos = 0;
  while (pos < header.size()) {
    size_t end = header.find(';', pos);
    if (end == std::string_view::npos) end = header.size();
    std::string_view item = header.substr(pos, end - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    size_t eq = item.find('=');
    if (eq != std::string_view::npos && item.substr(0, eq) == name) {
      return std::string(item.substr(eq + 1));
    }
    pos = end + 1;
  }
  return std::nullopt;
}

std::string SessionCookieValue(const std::string& token) {
  // BLAKE2b: the cookie does not give the token back.
  std::string message = "ray-dashboard-session:" + token;
  unsigned char out[32];
  crypto_generichash(out, sizeof(out), reinterpret_cast<const unsigned char*>(message.data()),
                     message.size(), nullptr, 0);
  return ToHex(std::string_view(reinterpret_cast<const char*>(out), sizeof(out)));
}

std::string SetCookieHeader(const std::string& token) {
  return std::string(kCookieName) + "=" + SessionCookieValue(token) +
         "; Path=/; HttpOnly; SameSite=Strict";
}

AuthResult Authenticate(const Credentials& request, const std::string& token) {
  if (token.empty()) return AuthResult::kRefused;  // a cluster without a token shows nothing
  constexpr std::string_view kBearer = "Bearer ";
  if (request.authorization.rfind(kBearer, 0) == 0 &&
      ConstantTimeEquals(std::string_view(request.authorization).substr(kBearer.size()), token)) {
    return AuthResult::kByHeader;
  }
  if (request.url_token && ConstantTimeEquals(*request.url_token, token)) {
    return AuthResult::kByUrlToken;
  }
  if (auto cookie = CookieValue(request.cookie, kCookieName)) {
    if (ConstantTimeEquals(*cookie, SessionCookieValue(token))) return AuthResult::kByCookie;
  }
  return AuthResult::kRefused;
}

}  // namespace ray::dashboard
