// The raylet's part of the state API: the direct calls its workers report (to the
// task reporter).

#include "runtime/raylet/raylet_impl.h"

namespace ray::raylet {

void Raylet::HandleTaskEvents(Client& c, std::string_view body) {
  auto msg = DecodeFrom<protocol::TaskEvents>(c.peer, body, "TaskEvents");
  if (!msg) return;
  reporter_.RecordDirectCalls(c, *msg);
}

}  // namespace ray::raylet
