#include "runtime/dashboard/login_page.h"

namespace ray::dashboard {

std::string LoginPage(bool wrong) {
  std::string message = wrong ? "<p class=\"err\">That is not the cluster token.</p>" : "";
  return R"(<!doctype html>
<html><head><meta charset="utf-8"><title>Ray dashboard: log in</title>
<style>body{font:15px sans-serif;margin:4em auto;max-width:32em}
input{font:inherit;width:100%;margin:.5em 0}.err{color:#b00}</style></head>
<body><h1>Ray dashboard</h1>
<p>This cluster's dashboard needs its token: the one <code>ray start --head</code> printed,
also in <code>&lt;session dir&gt;/token</code>.</p>)" +
         message + R"(
<form method="post" action="/login" id="login">
<input type="password" name="token" autocomplete="off" placeholder="cluster token" autofocus>
<input type="submit" value="Log in"></form></body></html>
)";
}

}  // namespace ray::dashboard
