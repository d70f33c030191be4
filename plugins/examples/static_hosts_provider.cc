// static_hosts_provider: an example NodeProvider plugin (<ray/node_provider.h>) whose
// nodes are machines you already have, listed by address. It is Ray's `local`
// provider written as a plugin: the file to copy when your nodes come from somewhere
// else (a cloud API, a lab's booking system). Use it from a cluster YAML:
//
//   provider:
//     type: external
//     module: build/plugins/examples/static_hosts_provider.so
//     hosts: [10.0.0.2, 10.0.0.3]  # required; the first is the head's
//     state_file: /tmp/x.json      # optional; default
//                                  #   ~/.ray/clusters/<cluster_name>-static-hosts.json
//   auth:
//     ssh_user: ubuntu
//
// A node is a host and its id is the host's address, as in Ray's local provider.
// Creating a node claims a free host, terminating it frees the host; nothing is
// started or stopped here (the launcher does that over ssh). The head is always
// hosts[0] and workers come from the rest, so `ray up` (which creates the head) and
// the head's autoscaler (which creates the workers), each keeping a state file on its
// own machine, never claim the same host.
//
// The state file holds the claimed hosts and their tags,
//   {"10.0.0.2": {"ray-node-type": "head", ...}, ...}
// read and written under flock(2) on <state_file>.lock, so that `ray up`, `ray down`
// and an autoscaler on one machine never interleave their changes.
//
// Build: a shared library that exports ray_node_provider_api (RAY_NODE_PROVIDER below)
// with default symbol visibility, compiled against the SDK headers; see
// plugins/examples/CMakeLists.txt. Errors are exceptions: the SDK turns them into
// errors the launcher prints.

#include <fcntl.h>
#include <ray/node_provider.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Json = nlohmann::json;

class StaticHostsProvider : public ray::NodeProviderPlugin {
 public:
  // `config` is the YAML's provider section; throws std::invalid_argument if it
  // lists no hosts.
  StaticHostsProvider(const Json& config, const std::string& cluster_name) {
    const Json hosts = config.value("hosts", Json());
    if (!hosts.is_array() || hosts.empty()) {
      throw std::invalid_argument(
          "static_hosts_provider needs `hosts`: a non-empty list of host addresses, the "
          "head's first");
    }
    for (const auto& h : hosts) {
      if (!h.is_string()) throw std::invalid_argument("`hosts` holds a non-address: " + h.dump());
      hosts_.push_back(h.get<std::string>());
    }
    const char* home = std::getenv("HOME");
    state_file_ = config.value("state_file", std::string(home ? home : ".") + "/.ray/clusters/" +
                                                 cluster_name + "-static-hosts.json");
  }

  Json NonTerminatedNodes(const Json& filter) override {
    Json nodes = Json::array();
    Update([&](Json& state) {
      for (const auto& host : hosts_) {
        if (state.contains(host) && Matches(state[host], filter)) {
          nodes.push_back({{"id", host}, {"ip", host}, {"tags", state[host]}});
        }
      }
    });
    return nodes;
  }

  // Claims up to `count` free hosts: hosts[0] for the head, the others for workers.
  // Fewer than asked when the hosts run out.
  Json CreateNodes(const Json& node_config, const Json& tags, int count,
                   const Json& resources) override {
    bool head = tags.value("ray-node-type", "") == "head";
    std::vector<std::string> candidates(hosts_.begin() + (head ? 0 : 1),
                                        head ? hosts_.begin() + 1 : hosts_.end());
    Json ids = Json::array();
    Update([&](Json& state) {
      for (const auto& host : candidates) {
        if (static_cast<int>(ids.size()) >= count) break;
        if (state.contains(host)) continue;  // claimed already
        state[host] = tags;
        ids.push_back(host);
      }
    });
    return ids;
  }

  void SetNodeTags(const std::string& id, const Json& tags) override {
    Update([&](Json& state) {
      if (!state.contains(id)) throw std::invalid_argument("no running node " + id);
      state[id].update(tags);
    });
  }

  void TerminateNodes(const Json& ids) override {
    Update([&](Json& state) {
      for (const auto& id : ids) state.erase(id.get<std::string>());
    });
  }

 private:
  static bool Matches(const Json& tags, const Json& filter) {
    for (const auto& [key, value] : filter.items()) {
      if (!tags.contains(key) || tags[key] != value) return false;
    }
    return true;
  }

  // Runs `change` on the state while holding the lock, then writes the state back
  // through a temporary file renamed over it (never half-written).
  template <typename Change>
  void Update(Change change) {
    auto dir = std::filesystem::path(state_file_).parent_path();
    if (!dir.empty()) std::filesystem::create_directories(dir);
    int lock = ::open((state_file_ + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0) throw std::runtime_error("cannot open " + state_file_ + ".lock");
    struct Unlock {
      int fd;
      ~Unlock() { ::close(fd); }  // releases the flock
    } unlock{lock};
    if (::flock(lock, LOCK_EX) != 0) throw std::runtime_error("cannot lock " + state_file_);

    Json state = Json::object();
    if (std::ifstream in(state_file_); in) {
      state = Json::parse(in, nullptr, /*allow_exceptions=*/false);
      if (!state.is_object()) {
        throw std::runtime_error("the state file " + state_file_ +
                                 " is not a JSON object; move it away to start afresh");
      }
    }
    change(state);
    std::string tmp = state_file_ + ".tmp";
    std::ofstream out(tmp, std::ios::trunc);
    out << state.dump(2);
    out.close();
    if (!out) throw std::runtime_error("cannot write " + tmp);
    std::filesystem::rename(tmp, state_file_);
  }

  std::vector<std::string> hosts_;
  std::string state_file_;
};

}  // namespace

RAY_NODE_PROVIDER(StaticHostsProvider)
