#include "runtime/dashboard/page_shell.h"

namespace ray::dashboard {

namespace {

// The text of the body's first <h1> (the pages' own, no markup inside); "" if none.
std::string Title(const std::string& body) {
  size_t open = body.find("<h1>");
  if (open == std::string::npos) return "";
  size_t close = body.find("</h1>", open);
  if (close == std::string::npos) return "";
  return body.substr(open + 4, close - open - 4);
}

}  // namespace

std::string PageHtml(const std::string& name, const std::string& body) {
  std::string title = Title(body);
  return "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Ray dashboard" +
         (title.empty() ? "" : ": " + title) +
         "</title>\n"
         "<link rel=\"stylesheet\" href=\"/dashboard.css\">"
         "<link rel=\"stylesheet\" href=\"/vendor/uPlot.min.css\">\n"
         "<script src=\"/vendor/uPlot.iife.min.js\"></script></head>\n<body><main>\n" +
         body + "<p id=\"status\" class=\"status\"></p>\n</main>\n<script type=\"module\" src=\"/" +
         name + ".js\"></script></body></html>\n";
}

}  // namespace ray::dashboard
