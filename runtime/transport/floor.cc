#include "runtime/transport/floor.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include <zmq.hpp>

#include "runtime/base/process.h"

namespace ray::transport {

namespace {

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ipc: "<endpoint>.rr" answers round trips, "<endpoint>.push" receives one-way
// messages; tcp: its port, and the next.
bool IsTcp(const std::string& endpoint) { return endpoint.rfind("tcp://", 0) == 0; }
std::string RoundTrips(const std::string& endpoint) {
  return IsTcp(endpoint) ? endpoint : endpoint + ".rr";
}
std::string OneWay(const std::string& endpoint) {
  if (!IsTcp(endpoint)) return endpoint + ".push";
  size_t colon = endpoint.rfind(':');
  return endpoint.substr(0, colon + 1) + std::to_string(std::stoi(endpoint.substr(colon + 1)) + 1);
}

}  // namespace

int RunFloorPeer(const std::string& endpoint) {
  zmq::context_t ctx(1);
  zmq::socket_t rep(ctx, zmq::socket_type::rep);
  zmq::socket_t pull(ctx, zmq::socket_type::pull);
  rep.bind(RoundTrips(endpoint));
  pull.bind(OneWay(endpoint));
  uint64_t received = 0, awaited = 0;
  bool awaiting = false;  // a request for "tell me when you have `awaited`"
  std::vector<zmq::pollitem_t> items = {{rep.handle(), 0, ZMQ_POLLIN, 0},
                                        {pull.handle(), 0, ZMQ_POLLIN, 0}};
  while (true) {
    zmq::poll(items.data(), items.size(), std::chrono::milliseconds(-1));
    if (items[1].revents & ZMQ_POLLIN) {
      zmq::message_t m;
      while (pull.recv(m, zmq::recv_flags::dontwait)) ++received;
    }
    if (!awaiting && (items[0].revents & ZMQ_POLLIN)) {
      zmq::message_t m;
      if (!rep.recv(m)) continue;
      if (m.size() == 4 && std::memcmp(m.data(), "stop", 4) == 0) {
        rep.send(zmq::buffer("ok", 2));
        return 0;
      }
      if (m.size() == sizeof(uint64_t)) {  // wait for that many one-way messages
        std::memcpy(&awaited, m.data(), sizeof(awaited));
        awaiting = true;
      } else {
        rep.send(m, zmq::send_flags::none);  // a round trip
      }
    }
    if (awaiting && received >= awaited) {
      rep.send(zmq::buffer("ok", 2));
      awaiting = false;
    }
  }
}

Result<Floor> MeasureFloor(std::vector<std::string> peer_argv, const std::string& endpoint,
                           double seconds, bool bandwidth) {
  peer_argv.push_back(endpoint);
  SpawnOptions o;
  o.argv = peer_argv;
  o.parent_death_signal = 9;
  RAY_ASSIGN_OR_RETURN(Child peer, Spawn(o));
  Floor f;
  try {
    zmq::context_t ctx(1);
    zmq::socket_t req(ctx, zmq::socket_type::req);
    zmq::socket_t push(ctx, zmq::socket_type::push);
    req.set(zmq::sockopt::linger, 0);
    push.set(zmq::sockopt::linger, 0);
    req.connect(RoundTrips(endpoint));
    push.connect(OneWay(endpoint));
    char payload[16] = {0};
    auto roundtrip = [&] {
      req.send(zmq::buffer(payload, sizeof(payload)), zmq::send_flags::none);
      zmq::message_t reply;
      if (!req.recv(reply)) throw std::runtime_error("no reply from the floor peer");
    };
    roundtrip();  // connected, and the peer is up
    double start = Seconds(), now = start;
    uint64_t n = 0;
    for (; now - start < seconds; now = Seconds(), ++n) roundtrip();
    f.roundtrips_per_s = n / (now - start);

    // One-way messages of `size` bytes for about `seconds`, in batches the peer
    // confirms; returns messages per second. (The peer counts them across calls.)
    uint64_t sent = 0;
    auto one_way = [&](const char* data, size_t size, uint64_t batch) {
      uint64_t sent_before = sent;
      double begin = Seconds(), end = begin;
      do {
        for (uint64_t i = 0; i < batch; ++i) push.send(zmq::buffer(data, size));
        sent += batch;
        req.send(zmq::buffer(&sent, sizeof(sent)), zmq::send_flags::none);  // all arrived?
        zmq::message_t ok;
        if (!req.recv(ok)) throw std::runtime_error("no reply from the floor peer");
        end = Seconds();
      } while (end - begin < seconds);
      return (sent - sent_before) / (end - begin);
    };
    f.messages_per_s = one_way(payload, sizeof(payload), 100000);
    if (bandwidth) {
      std::vector<char> chunk(kBandwidthChunk, 1);
      f.bytes_per_s = one_way(chunk.data(), chunk.size(), 16) * kBandwidthChunk;
    }
    req.send(zmq::buffer("stop", 4), zmq::send_flags::none);
    zmq::message_t ok;
    (void)req.recv(ok);
  } catch (const std::exception& e) {
    TerminateProcess(peer.pid, 100);
    return Status::Internal(std::string("measuring the ZeroMQ floor: ") + e.what());
  }
  TerminateProcess(peer.pid, 1000);
  return f;
}

}  // namespace ray::transport
