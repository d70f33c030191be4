#include "runtime/raylet/remote_tasks.h"

#include <deque>
#include <utility>

#include "runtime/base/hex.h"
#include "runtime/base/logging.h"
#include "runtime/scheduler/local_task_queue.h"

namespace ray::raylet {

using protocol::MessageType;
using protocol::ObjectPayload;
using protocol::ObjectState;
using protocol::TaskSpec;
using scheduler::ResourcesOf;
namespace ri = ray::internal;

void RemoteTasks::Send(TaskSpec t, const std::string& node_id) {
  std::deque<TaskSpec> calls;  // made while the creation waited here: they follow it
  if (t.kind == ri::kActorCreation) {
    Actor& a = d_.actors.Entry(ActorOfCreation(t.task_id));
    a.creation = t;
    a.remote_node = node_id;
    a.state = Actor::kAlive;  // calls go to its node, which queues them until it runs
    calls.swap(a.queue);
  }
  // Counted against the node's free resources until its reports show it (Charge).
  if (t.kind != ri::kActorTask) {
    d_.placement.Charge(node_id, ResourcesOf(t), d_.clock.MonoMillis(), t.task_id.Binary());
  }
  RAY_LOG_DEBUG("task {} ({}) goes to node {}", t.task_id.Hex(), t.function, ToHex(node_id));
  d_.tell(node_id,
          protocol::Encode(MessageType::kForwardTask, 0, protocol::ForwardTask{t, d_.self}));
  const TaskId tid = t.task_id;
  uint32_t returns = t.num_returns;
  d_.remote.Forwarded(std::move(t), node_id);
  // Results someone already waits for (a task spilled from this node's queue) are
  // fetched as soon as they exist there.
  for (uint32_t i = 1; i <= returns; ++i) {
    ObjectId id = ObjectId::ForTaskReturn(tid, i);
    if (d_.objects.Awaited(id)) d_.locator.Locate(id, "");
  }
  for (auto& call : calls) Send(std::move(call), node_id);
}

void RemoteTasks::Received(protocol::ForwardTask t) {
  if (Status valid = protocol::CheckTaskSpec(t.spec); !valid.ok()) {
    RAY_LOG_WARN("dropped a forwarded task: {}", valid.message());
    return;
  }
  if (d_.job_over(t.spec)) return;
  d_.remote.SetOrigin(t.spec.task_id, t.origin_node);
  // Its results are made here (again, if copies were evicted): pulls of them wait.
  for (uint32_t i = 1; i <= t.spec.num_returns && !d_.evicted.empty(); ++i) {
    d_.evicted.erase(ObjectId::ForTaskReturn(t.spec.task_id, i));
  }
  // Arguments missing here are pulled from the origin, which knows where they are.
  for (const auto& a : t.spec.args) {
    if (a.is_ref) d_.locator.Locate(ObjectId::FromBinary(a.data), t.origin_node);
  }
  d_.place_here(std::move(t.spec));
}

void RemoteTasks::Finished(const TaskId& task_id, const std::vector<ObjectPayload>& returns) {
  auto origin = d_.remote.TakeOrigin(task_id);
  if (!origin) return;
  protocol::TaskFinished finished{task_id, d_.self, {}};
  size_t bytes = 0;
  for (const ObjectPayload& r : returns) {
    const StoredObject* o = d_.objects.Find(r.id);  // what was kept (the first, if made twice)
    bool small = o && (o->state == ObjectState::kInline || o->state == ObjectState::kError);
    if (!small || (bytes += o->data.size()) > protocol::kFinishedReturnsLimit) continue;
    ObjectPayload p;
    p.id = r.id;
    p.state = static_cast<uint8_t>(o->state);
    p.data = o->data;
    finished.returns.push_back(std::move(p));
  }
  // The origin lets go of the task's arguments then: after the borrows made of them here.
  d_.peer_holds.After(
      [this, to = *origin, finished = std::move(finished)] {
        d_.tell(to, protocol::Encode(MessageType::kTaskFinished, 0, finished));
      },
      d_.clock.MonoMillis());
}

void RemoteTasks::FinishedElsewhere(const protocol::TaskFinished& f) {
  // Results of a task that ended on a node other than the one it was sent to (it was
  // forwarded on) are where the report says; small ones came along.
  auto sent = d_.remote.FinishedOn(f.task_id, f.node_id);
  // A normal task's resources are free there again (see Send's Charge).
  if (sent && sent->first.kind == ri::kNormalTask) {
    d_.placement.Refund(sent->second, f.task_id.Binary());
  }
  // Its arguments let go of what they held (the node that ran it said its borrows first).
  if (sent) d_.lifetime.TaskEnded(f.task_id);
  for (const ObjectPayload& p : f.returns) {
    if (p.id.Task() == f.task_id && !d_.objects.Ready(p.id)) d_.store_copy(p);
  }
}

}  // namespace ray::raylet
