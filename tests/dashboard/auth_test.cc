#include "runtime/dashboard/auth.h"

#include <gtest/gtest.h>

namespace ray::dashboard {
namespace {

TEST(AuthTest, ConstantTimeEqualsComparesWholeStrings) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "ab"));
  EXPECT_FALSE(ConstantTimeEquals("ab", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("", "a"));
}

TEST(AuthTest, CookieValueFindsTheNamedCookie) {
  EXPECT_EQ(CookieValue("a=1; ray_dashboard=xyz; b=2", "ray_dashboard"), "xyz");
  EXPECT_EQ(CookieValue("ray_dashboard=xyz", "ray_dashboard"), "xyz");
  EXPECT_EQ(CookieValue("xray_dashboard=1", "ray_dashboard"), std::nullopt);
  EXPECT_EQ(CookieValue("", "ray_dashboard"), std::nullopt);
  EXPECT_EQ(CookieValue(";;; =; ray_dashboard", "ray_dashboard"), std::nullopt);
}

TEST(AuthTest, TheCookieIsADigestNotTheToken) {
  std::string v = SessionCookieValue("secret-token");
  EXPECT_EQ(v.size(), 64u);
  EXPECT_EQ(v.find("secret"), std::string::npos);
  EXPECT_NE(v, SessionCookieValue("secret-tokeN"));
  std::string header = SetCookieHeader("secret-token");
  EXPECT_NE(header.find("HttpOnly"), std::string::npos);
  EXPECT_NE(header.find("SameSite=Strict"), std::string::npos);
  EXPECT_EQ(header.find("secret-token"), std::string::npos);
}

TEST(AuthTest, AcceptsTheTokenInEachPlaceAndRefusesOthers) {
  const std::string token = "t0k3n";
  EXPECT_EQ(Authenticate({}, token), AuthResult::kRefused);
  EXPECT_EQ(Authenticate({"Bearer t0k3n", std::nullopt, ""}, token), AuthResult::kByHeader);
  EXPECT_EQ(Authenticate({"Bearer t0k3", std::nullopt, ""}, token), AuthResult::kRefused);
  EXPECT_EQ(Authenticate({"t0k3n", std::nullopt, ""}, token), AuthResult::kRefused);
  EXPECT_EQ(Authenticate({"", "t0k3n", ""}, token), AuthResult::kByUrlToken);
  EXPECT_EQ(Authenticate({"", "t0k3n ", ""}, token), AuthResult::kRefused);
  std::string cookie = "x=1; ray_dashboard=" + SessionCookieValue(token);
  EXPECT_EQ(Authenticate({"", std::nullopt, cookie}, token), AuthResult::kByCookie);
  // The raw token is not a valid cookie.
  EXPECT_EQ(Authenticate({"", std::nullopt, "ray_dashboard=t0k3n"}, token), AuthResult::kRefused);
  // A wrong URL token does not hide a valid cookie.
  EXPECT_EQ(Authenticate({"", "nope", cookie}, token), AuthResult::kByCookie);
  // A cluster without a token: nothing is accepted.
  EXPECT_EQ(Authenticate({"Bearer ", "", "ray_dashboard="}, ""), AuthResult::kRefused);
}

}  // namespace
}  // namespace ray::dashboard
