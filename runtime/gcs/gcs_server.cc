// The GCS server loop: one ROUTER socket, one thread. Each frame is handed to
// GcsService and its reply (if any) goes back to the same peer; between frames, and
// at least every kPollMs, the service's periodic work runs.

#include "runtime/gcs/gcs_server.h"

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/transport/curve.h"
#include "runtime/gcs/gcs_service.h"
#include "runtime/gcs/gcs_store.h"
#include "runtime/transport/transport.h"

namespace ray::gcs {

namespace {

constexpr int kPollMs = 50;

Status Serve(const GcsOptions& options, const std::atomic<bool>& stop) {
  if (options.session_dir.empty()) return Status::InvalidArgument("GCS session_dir is empty");
  std::error_code ec;
  std::filesystem::create_directories(options.session_dir, ec);
  if (ec) {
    return Status::Unavailable("cannot create session dir " + options.session_dir + ": " +
                               ec.message());
  }
  const std::string path = options.session_dir + "/gcs.sqlite3";
  bool recovering = !options.recover_from.empty() && !std::filesystem::exists(path, ec);
  if (recovering) RAY_RETURN_IF_ERROR(GcsStore::Copy(options.recover_from, path));
  RAY_ASSIGN_OR_RETURN(std::unique_ptr<GcsStore> store, GcsStore::Open(path));
  if (recovering) {
    RAY_RETURN_IF_ERROR(store->EndUnfinishedJobs(-1, NowMillis()));
    RAY_LOG_INFO("GCS tables taken from {}", options.recover_from);
  }
  RAY_ASSIGN_OR_RETURN(std::unique_ptr<GcsService> service,
                       GcsService::Create(std::move(store), options.token,
                                          options.heartbeat_timeout_ms, MonoMillis()));

  transport::UseClusterToken(options.token);  // the keys of sockets between hosts
  transport::Router router;
  RAY_ASSIGN_OR_RETURN(std::string endpoint, router.Bind(options.listen));
  if (!options.ready_file.empty()) RAY_RETURN_IF_ERROR(WriteFile(options.ready_file, endpoint));
  RAY_LOG_INFO("GCS serving on {} (database in {})", endpoint, options.session_dir);

  while (!stop.load()) {
    std::optional<transport::Incoming> in;
    try {
      in = router.Recv(kPollMs);
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) {
        service->Flush();
        return Status::Unavailable(std::string("GCS socket failed: ") + e.what());
      }
    }
    if (in) {
      std::optional<std::string> reply;
      try {
        reply = service->HandleFrame(in->peer, in->frame);
      } catch (const std::exception& e) {  // e.g. bad_alloc: lose the request, keep serving
        RAY_LOG_ERROR("GCS failed on a frame from peer {}: {}", ToHex(in->peer), e.what());
      }
      if (reply && !router.Send(in->peer, *reply)) {
        RAY_LOG_DEBUG("GCS reply to peer {} dropped: peer gone", ToHex(in->peer));
      }
    }
    service->Tick(MonoMillis());
  }
  service->Flush();
  RAY_LOG_INFO("GCS on {} stopped", endpoint);
  return Status::Ok();
}

}  // namespace

Status RunGcsServer(const GcsOptions& options, const std::atomic<bool>& stop) {
  // The edge of the module: ZeroMQ and allocation failures become a Status here.
  try {
    return Serve(options, stop);
  } catch (const std::exception& e) {
    RAY_LOG_ERROR("GCS server failed: {}", e.what());
    return Status::Internal(std::string("GCS server failed: ") + e.what());
  }
}

}  // namespace ray::gcs
