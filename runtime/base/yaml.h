#pragma once
// YAML documents read as JSON values, the form the rest of ray works with.

#include <string>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "runtime/base/status.h"

namespace ray {

// Scalars typed as YAML 1.1 reads them: 1 -> int, 1.5 -> double, true/True -> bool,
// null/~/None -> null; quoted scalars stay strings.
nlohmann::json YamlToJson(const YAML::Node& node);

// A YAML file as JSON; InvalidArgument names the file (and the line of a syntax error).
Result<nlohmann::json> LoadYamlFile(const std::string& path);

}  // namespace ray
