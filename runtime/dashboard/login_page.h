#pragma once
// The page a request without the cluster token gets (with 401).

#include <string>

namespace ray::dashboard {

// `wrong`: the request carried a token that did not match.
std::string LoginPage(bool wrong);

}  // namespace ray::dashboard
