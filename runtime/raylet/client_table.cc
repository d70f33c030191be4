#include "runtime/raylet/client_table.h"

#include <algorithm>

namespace ray::raylet {

protocol::StartGate* Client::Gate() {
  if (!gate && !direct_endpoint.empty()) {
    gate = protocol::StartGate::Open(protocol::StartGatePath(direct_endpoint));
  }
  return gate.get();
}

Client* ClientTable::Find(const std::string& peer) {
  auto it = clients_.find(peer);
  return it == clients_.end() ? nullptr : &it->second;
}

const Client* ClientTable::Find(const std::string& peer) const {
  auto it = clients_.find(peer);
  return it == clients_.end() ? nullptr : &it->second;
}

Client& ClientTable::AddDriver(const std::string& peer, int pid, const JobId& job_id) {
  Client& c = clients_[peer] = Client{};
  c.peer = peer;
  c.is_driver = true;
  c.registered = true;
  c.pid = pid;
  c.job_id = job_id;
  return c;
}

void ClientTable::AddStarting(const std::string& peer) {
  Client& c = clients_[peer] = Client{};
  c.peer = peer;
  ++starting_;
}

void ClientTable::Register(Client& w, int pid, const std::string& direct_endpoint) {
  if (w.registered) return;  // (again: it may be busy, and is in line already if idle)
  if (starting_ > 0) --starting_;
  w.registered = true;
  w.pid = pid;
  w.direct_endpoint = direct_endpoint;
  w.state = Client::kIdle;
  idle_.push_back(w.peer);
}

std::optional<Client> ClientTable::Take(const std::string& peer) {
  auto it = clients_.find(peer);
  if (it == clients_.end()) return std::nullopt;
  Client c = std::move(it->second);
  clients_.erase(it);
  if (!c.is_driver && !c.registered && starting_ > 0) --starting_;
  return c;
}

void ClientTable::MakeIdle(Client& w) {
  w.state = Client::kIdle;
  idle_.push_front(w.peer);
}

Client* ClientTable::FirstIdle(const std::string& env) {
  std::erase_if(idle_, [&](const std::string& peer) {
    const Client* w = Find(peer);
    return !w || w->state != Client::kIdle;
  });
  for (auto it = idle_.begin(); it != idle_.end(); ++it) {
    Client& w = clients_.at(*it);
    if (!w.Serves(env)) continue;
    if (it != idle_.begin()) std::iter_swap(it, idle_.begin());
    return &w;
  }
  return nullptr;
}

size_t ClientTable::Actors() const {
  return static_cast<size_t>(std::count_if(clients_.begin(), clients_.end(), [](const auto& entry) {
    return entry.second.state == Client::kActor;
  }));
}

}  // namespace ray::raylet
