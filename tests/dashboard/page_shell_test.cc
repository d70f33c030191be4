#include "runtime/dashboard/page_shell.h"

#include <gtest/gtest.h>

namespace ray::dashboard {
namespace {

TEST(PageShellTest, WrapsTheBodyWithTheTitleStylesAndThePagesScript) {
  std::string html = PageHtml("tasks", "<h1>Tasks</h1>\n<table id=\"tasks\"></table>\n");
  EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u) << html;
  EXPECT_NE(html.find("<title>Ray dashboard: Tasks</title>"), std::string::npos) << html;
  EXPECT_NE(html.find("<link rel=\"stylesheet\" href=\"/dashboard.css\">"), std::string::npos);
  EXPECT_NE(html.find("<script src=\"/vendor/uPlot.iife.min.js\"></script>"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"tasks\"></table>"), std::string::npos);
  EXPECT_NE(html.find("<p id=\"status\" class=\"status\"></p>"), std::string::npos);
  EXPECT_NE(html.find("<script type=\"module\" src=\"/tasks.js\"></script></body></html>"),
            std::string::npos)
      << html;
}

TEST(PageShellTest, ABodyWithoutAHeadingGetsThePlainTitle) {
  std::string html = PageHtml("index", "<p>hi</p>");
  EXPECT_NE(html.find("<title>Ray dashboard</title>"), std::string::npos) << html;
  EXPECT_NE(html.find("src=\"/index.js\""), std::string::npos);
}

}  // namespace
}  // namespace ray::dashboard
