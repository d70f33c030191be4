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
std::optional<std::string> token;  // guarded by mu
std::optional<Keys> keys;          // guarded by mu: made from the token on first use

std::string HostOf(const std::string& endpoint) {
  std::string rest = endpoint.substr(6);  // after "tcp://"
  if (!rest.empty() && rest[0] == '[') return rest.substr(1, rest.find(']') - 1);
  return rest.substr(0, rest.rfind(':'));
}

// The keys of the token given last, made now if not yet (with mu held). Most processes
// never open an encrypted socket: making keys costs two Curve25519 key pairs.
const Keys* KeysLocked() {
  if (keys || !token || sodium_init() < 0) return keys ? &*keys : nullptr;
  constexpr std::string_view kContext = "ray cluster curve key v1:";
  std::string input = std::string(kContext) + *token;
  unsigned char seed[crypto_box_SEEDBYTES];
  crypto_generichash(seed, sizeof(seed), reinterpret_cast<const unsigned char*>(input.data()),
                     input.size(), nullptr, 0);
  sodium_memzero(input.data(), input.size());
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
  keys = std::move(k);
  return &*keys;
}

}  // namespace

void UseClusterToken(std::string_view new_token) {
  std::lock_guard<std::mutex> lock(mu);
  if (token && *token == new_token) return;
  token = std::string(new_token);
  keys.reset();
}

bool Encrypted(const std::string& endpoint) {
  if (endpoint.rfind("tcp://", 0) != 0) return false;
  std::string host = HostOf(endpoint);
  return !(host.rfind("127.", 0) == 0 || host == "localhost" || host == "::1");
}

Status MakeCurveServer(zmq::socket_t& socket, const std::string& endpoint) {
  std::lock_guard<std::mutex> lock(mu);
  const Keys* k = KeysLocked();
  if (!k) {
    return Status::FailedPrecondition("listening on " + endpoint +
                                      " (encrypted) needs the cluster token");
  }
  socket.set(zmq::sockopt::curve_server, 1);
  socket.set(zmq::sockopt::curve_secretkey, zmq::buffer(k->server_secret));
  return Status::Ok();
}

Status MakeCurveClient(zmq::socket_t& socket, const std::string& endpoint) {
  std::lock_guard<std::mutex> lock(mu);
  const Keys* k = KeysLocked();
  if (!k) {
    return Status::FailedPrecondition("connecting to " + endpoint +
                                      " (encrypted) needs the cluster token");
  }
  socket.set(zmq::sockopt::curve_serverkey, zmq::buffer(k->server_public));
  socket.set(zmq::sockopt::curve_publickey, zmq::buffer(k->client_public));
  socket.set(zmq::sockopt::curve_secretkey, zmq::buffer(k->client_secret));
  return Status::Ok();
}

}  // namespace ray::transport
