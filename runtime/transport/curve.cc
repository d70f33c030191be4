#include "runtime/transport/curve.h"

#include <sodium.h>

#include <mutex>
#include <optional>

namespace ray::transport {
namespace {

struct Keys {
  std::string server_public, server_secret;  // 32 bytes each, from the token
  std::string client_public, client_secret;  // this process's own
};

std::mutex mu;
std::optional<Keys> keys;  // guarded by mu

std::string HostOf(const std::string& endpoint) {
  std::string rest = endpoint.substr(6);  // after "tcp://"
  if (!rest.empty() && rest[0] == '[') return rest.substr(1, rest.find(']') - 1);
  return rest.substr(0, rest.rfind(':'));
}

}  // namespace

void UseClusterToken(std::string_view token) {
  if (sodium_init() < 0) return;  // (then no key: encrypted sockets are refused)
  constexpr std::string_view kContext = "ray cluster curve key v1:";
  std::string input = std::string(kContext) + std::string(token);
  unsigned char seed[crypto_box_SEEDBYTES];
  crypto_generichash(seed, sizeof(seed), reinterpret_cast<const unsigned char*>(input.data()),
                     input.size(), nullptr, 0);
  unsigned char pk[crypto_box_PUBLICKEYBYTES], sk[crypto_box_SECRETKEYBYTES];
  crypto_box_seed_keypair(pk, sk, seed);
  sodium_memzero(seed, sizeof(seed));
  Keys k;
  k.server_public.assign(reinterpret_cast<char*>(pk), sizeof(pk));
  k.server_secret.assign(reinterpret_cast<char*>(sk), sizeof(sk));
  sodium_memzero(sk, sizeof(sk));
  crypto_box_keypair(pk, sk);
  k.client_public.assign(reinterpret_cast<char*>(pk), sizeof(pk));
  k.client_secret.assign(reinterpret_cast<char*>(sk), sizeof(sk));
  sodium_memzero(sk, sizeof(sk));
  std::lock_guard<std::mutex> lock(mu);
  keys = std::move(k);
}

bool Encrypted(const std::string& endpoint) {
  if (endpoint.rfind("tcp://", 0) != 0) return false;
  std::string host = HostOf(endpoint);
  return !(host.rfind("127.", 0) == 0 || host == "localhost" || host == "::1");
}

Status MakeCurveServer(zmq::socket_t& socket, const std::string& endpoint) {
  std::lock_guard<std::mutex> lock(mu);
  if (!keys) {
    return Status::FailedPrecondition("listening on " + endpoint +
                                      " (between hosts, so encrypted) needs the cluster token");
  }
  socket.set(zmq::sockopt::curve_server, 1);
  socket.set(zmq::sockopt::curve_secretkey, zmq::buffer(keys->server_secret));
  return Status::Ok();
}

Status MakeCurveClient(zmq::socket_t& socket, const std::string& endpoint) {
  std::lock_guard<std::mutex> lock(mu);
  if (!keys) {
    return Status::FailedPrecondition("connecting to " + endpoint +
                                      " (between hosts, so encrypted) needs the cluster token");
  }
  socket.set(zmq::sockopt::curve_serverkey, zmq::buffer(keys->server_public));
  socket.set(zmq::sockopt::curve_publickey, zmq::buffer(keys->client_public));
  socket.set(zmq::sockopt::curve_secretkey, zmq::buffer(keys->client_secret));
  return Status::Ok();
}

}  // namespace ray::transport
