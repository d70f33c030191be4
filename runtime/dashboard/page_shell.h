#pragma once
// The one HTML shell of every dashboard page: the files of share/dashboard/pages/
// hold only a page's body (beginning with its <h1>); the server serves `<name>.html`
// as this shell around it, with the page's title (the <h1>'s text), the style sheets,
// the chart library, a status line and the page's script `<name>.js`. Pure.

#include <string>

namespace ray::dashboard {

// `name`: the page's file name without ".html" ("index", "tasks"); `body`: its file.
std::string PageHtml(const std::string& name, const std::string& body);

}  // namespace ray::dashboard
