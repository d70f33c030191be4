#include "runtime/raylet/cpu_lending.h"

#include "runtime/scheduler/local_task_queue.h"

namespace ray::raylet {

void CpuLending::Blocked(Client& c, const std::shared_ptr<Waiter>& w) {
  if (w->done || c.is_driver || c.state != Client::kBusy) return;
  c.blocking[w->request_id] = w;
  if (c.blocked) return;
  ResourceSet cpu = c.held.CpuOnly();
  node_.available.Add(cpu);
  c.held.Subtract(cpu);
  if (!c.leased_to.empty()) node_.leases.Lent(cpu);
  c.blocked = true;
  node_.cpu_freed();
}

void CpuLending::Answered(const std::string& peer, uint64_t request_id) {
  Client* client = node_.clients.Find(peer);
  if (!client) return;
  Client& c = *client;
  c.blocking.erase(request_id);
  if (c.blocking.empty() && c.blocked) Unblock(c);
}

void CpuLending::Abandoned(Client& c, uint64_t request_id) {
  auto it = c.blocking.find(request_id);
  if (it == c.blocking.end()) return;              // answered already (its reply is dropped there)
  if (auto w = it->second.lock()) w->done = true;  // (the object table skips it from now on)
  Answered(c.peer, request_id);
}

void CpuLending::Unblock(Client& c) {
  c.blocked = false;
  if (!c.running && c.leased_to.empty()) return;
  ResourceSet cpu = (c.running ? scheduler::ResourcesOf(*c.running) : c.lease_shape).CpuOnly();
  node_.available.Subtract(cpu);
  c.held.Add(cpu);
  if (!c.leased_to.empty()) node_.leases.Reacquired(cpu);
}

}  // namespace ray::raylet
